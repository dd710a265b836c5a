"""The per-model evaluations a run makes beside the bias scores, after scoring: quality
benchmarks, likelihood benchmarks and the lipstick tests of debiased variants, each cached
per model (or per base and variant)."""
