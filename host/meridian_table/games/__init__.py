"""Pure rules engines, one package per game. No I/O: no ports, files or sockets."""
