-- The bundled bank `genai-llm` moved from seven home-made topics to the ten NCP-GENL domains
-- (question ids unchanged; docs/bank-changelog.md has the map). Memory states, misconception
-- states and exam dates are keyed on question, misconception and bank ids and need nothing.
-- What is keyed on a topic id moves here: each answer and mock item to its question's new
-- domain, the per-topic totals of /stats with them, and a learner's, chat's or subscription's
-- chosen topic. Only rows of bank `genai-llm` (or of the default bank, NULL) whose topic is one
-- of the old ids are touched, so a database that never served the old layout is unchanged.

CREATE TEMP TABLE genl_moves (
    question_id TEXT PRIMARY KEY,
    old_topic   TEXT NOT NULL,
    new_topic   TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO genl_moves (question_id, old_topic, new_topic) VALUES
    ('deploy-autoscaling-cold-start', 'optimization-deployment', 'model-deployment'),
    ('deploy-awq-vs-gptq', 'optimization-deployment', 'model-optimization'),
    ('deploy-chunked-prefill-stalls', 'optimization-deployment', 'model-deployment'),
    ('deploy-concurrency-kv-limit', 'optimization-deployment', 'gpu-acceleration'),
    ('deploy-continuous-batching', 'optimization-deployment', 'model-deployment'),
    ('deploy-cost-per-million-tokens', 'optimization-deployment', 'model-deployment'),
    ('deploy-decode-batch-throughput', 'optimization-deployment', 'gpu-acceleration'),
    ('deploy-fanout-tail-latency', 'optimization-deployment', 'model-deployment'),
    ('deploy-flashattention-savings', 'optimization-deployment', 'model-optimization'),
    ('deploy-fp8-prefill-bound', 'optimization-deployment', 'model-optimization'),
    ('deploy-greedy-nondeterminism', 'optimization-deployment', 'model-deployment'),
    ('deploy-kv-cache-fp8', 'optimization-deployment', 'model-optimization'),
    ('deploy-kv-cache-sizing', 'optimization-deployment', 'llm-architecture'),
    ('deploy-multi-lora-serving', 'optimization-deployment', 'model-deployment'),
    ('deploy-paged-attention-shared-prompt', 'optimization-deployment', 'model-optimization'),
    ('deploy-paged-kv-cache', 'optimization-deployment', 'model-optimization'),
    ('deploy-pipeline-parallel-latency', 'optimization-deployment', 'gpu-acceleration'),
    ('deploy-prefill-decode-disaggregation', 'optimization-deployment', 'model-deployment'),
    ('deploy-prefix-caching', 'optimization-deployment', 'model-optimization'),
    ('deploy-speculative-decoding', 'optimization-deployment', 'model-optimization'),
    ('deploy-speculative-expected-tokens', 'optimization-deployment', 'model-optimization'),
    ('deploy-streaming-perceived-latency', 'optimization-deployment', 'model-deployment'),
    ('deploy-tensor-pipeline-layout', 'optimization-deployment', 'gpu-acceleration'),
    ('deploy-ttft-itl-targets', 'optimization-deployment', 'model-deployment'),
    ('deploy-ttft-long-prompt-levers', 'optimization-deployment', 'model-deployment'),
    ('deploy-weight-memory-int4', 'optimization-deployment', 'model-optimization'),
    ('rag-agent-cost-latency', 'rag-agents', 'model-deployment'),
    ('rag-agent-memory', 'rag-agents', 'prompt-engineering'),
    ('rag-agent-sandbox-approval', 'rag-agents', 'safety-ethics-compliance'),
    ('rag-agent-step-limits', 'rag-agents', 'safety-ethics-compliance'),
    ('rag-chunk-size-tradeoff', 'rag-agents', 'model-deployment'),
    ('rag-chunk-structure-headers', 'rag-agents', 'model-deployment'),
    ('rag-citation-verification', 'rag-agents', 'prompt-engineering'),
    ('rag-context-ordering', 'rag-agents', 'prompt-engineering'),
    ('rag-conversational-query-rewrite', 'rag-agents', 'prompt-engineering'),
    ('rag-cross-encoder-rerank', 'rag-agents', 'model-deployment'),
    ('rag-diagnose-retrieval-vs-generation', 'rag-agents', 'evaluation'),
    ('rag-embedding-normalisation', 'rag-agents', 'model-deployment'),
    ('rag-function-calling-basics', 'rag-agents', 'prompt-engineering'),
    ('rag-hnsw-recall-tuning', 'rag-agents', 'model-deployment'),
    ('rag-hybrid-exact-identifiers', 'rag-agents', 'model-deployment'),
    ('rag-hyde-hypothetical-document', 'rag-agents', 'prompt-engineering'),
    ('rag-index-freshness', 'rag-agents', 'model-deployment'),
    ('rag-ivf-pq-recall', 'rag-agents', 'model-deployment'),
    ('rag-long-context-vs-retrieval', 'rag-agents', 'prompt-engineering'),
    ('rag-mcp-tool-poisoning', 'rag-agents', 'safety-ethics-compliance'),
    ('rag-metadata-prefilter', 'rag-agents', 'model-deployment'),
    ('rag-mrr-vs-recall', 'rag-agents', 'evaluation'),
    ('rag-ndcg-graded-relevance', 'rag-agents', 'evaluation'),
    ('rag-planner-executor', 'rag-agents', 'prompt-engineering'),
    ('rag-react-pattern', 'rag-agents', 'prompt-engineering'),
    ('rag-reembed-on-model-change', 'rag-agents', 'model-deployment'),
    ('rag-rrf-fusion-ranks', 'rag-agents', 'model-deployment'),
    ('rag-tool-output-injection', 'rag-agents', 'safety-ethics-compliance'),
    ('rag-tool-selection-errors', 'rag-agents', 'prompt-engineering'),
    ('safety-automated-red-team-metrics', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-eu-ai-act-structure', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-improper-output-handling', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-incident-response', 'safety-guardrails', 'production-monitoring'),
    ('safety-indirect-prompt-injection', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-injection-blast-radius', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-model-card-contents', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-nist-ai-rmf-functions', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-output-moderation', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-over-refusal-tradeoff', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-owasp-excessive-agency', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-pii-in-logs', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-quality-drift-monitoring', 'safety-guardrails', 'production-monitoring'),
    ('safety-red-team-practices', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-release-eval-gate', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-roleplay-jailbreak', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-system-prompt-secrets', 'safety-guardrails', 'safety-ethics-compliance'),
    ('safety-trace-llm-calls', 'safety-guardrails', 'production-monitoring'),
    ('safety-unbounded-consumption', 'safety-guardrails', 'safety-ethics-compliance');

-- Old topic ids that are no longer topics, and where a choice of them (or their /stats totals of
-- answers that retention has already pruned, which no longer say their question) goes: the
-- domain that received most of their questions.
CREATE TEMP TABLE genl_gone (
    old_topic TEXT PRIMARY KEY,
    chosen    TEXT,              -- a learner's chosen topic: NULL (all topics) when it split
    residue   TEXT NOT NULL      -- totals not attributable to a question
) WITHOUT ROWID;
INSERT INTO genl_gone (old_topic, chosen, residue) VALUES
    ('rag-agents', NULL, 'model-deployment'),
    ('optimization-deployment', NULL, 'model-deployment'),
    ('safety-guardrails', 'safety-ethics-compliance', 'safety-ethics-compliance');

-- /stats totals: the counts of the answers that move, per learner, from old to new topic.
CREATE TEMP TABLE genl_delta AS
SELECT a.user_id, m.old_topic, m.new_topic, COUNT(*) AS answered, SUM(a.correct) AS correct
FROM answers a JOIN genl_moves m ON m.question_id = a.question_id AND m.old_topic = a.topic
WHERE a.bank_id = 'genai-llm'
GROUP BY a.user_id, m.old_topic, m.new_topic;

UPDATE learner_topics SET
    answered = answered - (SELECT SUM(d.answered) FROM genl_delta d
                           WHERE d.user_id = learner_topics.user_id
                             AND d.old_topic = learner_topics.topic),
    correct = correct - (SELECT SUM(d.correct) FROM genl_delta d
                         WHERE d.user_id = learner_topics.user_id
                           AND d.old_topic = learner_topics.topic)
WHERE bank_id = 'genai-llm'
  AND EXISTS (SELECT 1 FROM genl_delta d
              WHERE d.user_id = learner_topics.user_id AND d.old_topic = learner_topics.topic);

-- What is left under a gone topic (answers pruned by retention) goes to its residue domain.
INSERT INTO genl_delta (user_id, old_topic, new_topic, answered, correct)
SELECT t.user_id, t.topic, g.residue, t.answered, t.correct
FROM learner_topics t JOIN genl_gone g ON g.old_topic = t.topic
WHERE t.bank_id = 'genai-llm' AND t.answered > 0;
DELETE FROM learner_topics
WHERE bank_id = 'genai-llm' AND topic IN (SELECT old_topic FROM genl_gone);
DELETE FROM learner_topics WHERE bank_id = 'genai-llm' AND answered <= 0;

INSERT INTO learner_topics (user_id, bank_id, topic, answered, correct)
SELECT user_id, 'genai-llm', new_topic, SUM(answered), SUM(correct)
FROM genl_delta WHERE true GROUP BY user_id, new_topic
ON CONFLICT (user_id, bank_id, topic) DO UPDATE SET
    answered = answered + excluded.answered,
    correct = correct + excluded.correct;

UPDATE answers SET topic = (SELECT m.new_topic FROM genl_moves m
                            WHERE m.question_id = answers.question_id)
WHERE bank_id = 'genai-llm'
  AND EXISTS (SELECT 1 FROM genl_moves m
              WHERE m.question_id = answers.question_id AND m.old_topic = answers.topic);

-- Mock exams: items follow their question (readiness reads recent mocks per topic) and the
-- blueprint stored with each exam becomes the ten domains, so its per-topic result reads in
-- today's domains. Answers, scores and question snapshots stay as they were.
UPDATE mock_items SET topic = (SELECT m.new_topic FROM genl_moves m
                               WHERE m.question_id = mock_items.question_id)
WHERE EXISTS (SELECT 1 FROM mock_exams e WHERE e.id = mock_items.exam_id
              AND e.bank_id = 'genai-llm')
  AND EXISTS (SELECT 1 FROM genl_moves m
              WHERE m.question_id = mock_items.question_id AND m.old_topic = mock_items.topic);
UPDATE mock_exams SET topics = '[{"id": "model-optimization", "name": "Model Optimization", "weight": 17.0}, {"id": "gpu-acceleration", "name": "GPU Acceleration and Optimization", "weight": 14.0}, {"id": "prompt-engineering", "name": "Prompt Engineering", "weight": 13.0}, {"id": "fine-tuning", "name": "Fine-Tuning", "weight": 13.0}, {"id": "data-preparation", "name": "Data Preparation", "weight": 9.0}, {"id": "model-deployment", "name": "Model Deployment", "weight": 9.0}, {"id": "evaluation", "name": "Evaluation", "weight": 7.0}, {"id": "production-monitoring", "name": "Production Monitoring and Reliability", "weight": 7.0}, {"id": "llm-architecture", "name": "LLM Architecture", "weight": 6.0}, {"id": "safety-ethics-compliance", "name": "Safety, Ethics and Compliance", "weight": 5.0}]'
WHERE bank_id = 'genai-llm' AND topics LIKE '%"rag-agents"%';

-- Chosen topics (private practice, groups, daily subscriptions).
UPDATE users SET topic = (SELECT g.chosen FROM genl_gone g WHERE g.old_topic = users.topic)
WHERE (bank_id = 'genai-llm' OR bank_id IS NULL)
  AND topic IN (SELECT old_topic FROM genl_gone);
UPDATE chats SET topic = (SELECT g.chosen FROM genl_gone g WHERE g.old_topic = chats.topic)
WHERE (bank_id = 'genai-llm' OR bank_id IS NULL)
  AND topic IN (SELECT old_topic FROM genl_gone);
UPDATE subscriptions SET topic = (SELECT g.chosen FROM genl_gone g
                                  WHERE g.old_topic = subscriptions.topic)
WHERE (bank_id = 'genai-llm' OR bank_id IS NULL)
  AND topic IN (SELECT old_topic FROM genl_gone);

DROP TABLE genl_delta;
DROP TABLE genl_gone;
DROP TABLE genl_moves;
