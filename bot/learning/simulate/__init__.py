"""Simulated learners practising a bank under a policy, on a simulated clock."""
