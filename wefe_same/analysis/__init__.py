"""What the rankings say: aggregation and ranks, correlations, intervals, external columns, sensitivity."""
