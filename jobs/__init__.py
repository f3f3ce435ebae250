"""RQ jobs, one module per domain. Jobs load state, call services and record the outcome."""
