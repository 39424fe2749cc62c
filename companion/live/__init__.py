"""The live sockets and the HTTP loop that carries them: slow clients cost a socket, never a thread."""
