"""Speed benchmarks against peer libraries, run side by side in one process (``boardgym bench``)."""
