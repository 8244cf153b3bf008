-- What Telegram calls each picture the bot uploaded (a question's image, a rendered formula),
-- keyed by the picture's content hash: a picture is uploaded once, then sent by file_id.
-- A file_id is valid only for the bot that uploaded it; a refused one is forgotten.
CREATE TABLE media_files (
    content_key TEXT PRIMARY KEY,            -- "image:<sha256>" or "formula:<sha256>"
    file_id     TEXT NOT NULL,
    uploaded_at REAL NOT NULL
);
