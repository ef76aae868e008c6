"""The d20 movement rules: the chapter's tables, overland travel, fatigue and chases."""
