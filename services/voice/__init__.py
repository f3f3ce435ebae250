"""Voice intake: the platform's server messages in, intake functions, signed events out."""
