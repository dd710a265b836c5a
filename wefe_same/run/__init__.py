"""Running a ranking: the checked config, the plan, the per-model cache, executors and the stages of rank."""
