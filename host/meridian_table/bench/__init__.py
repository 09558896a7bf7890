"""Benchmarks behind `meridian-table bench NAME`. One module per bench."""
