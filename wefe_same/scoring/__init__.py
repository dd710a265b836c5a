"""Per-model scoring: the vectors of a run's words, every metric on every subquery, score matrices."""
