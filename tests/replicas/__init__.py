"""Replicas of one hub on a shared PostgreSQL database."""
