"""Matches, tournaments, ratings and reports."""
