"""Running a ranking: options, the plan, the per-model cache, executors and the stages of rank."""
