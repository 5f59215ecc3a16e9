#!/bin/sh
# Starts the server, runs N requests from the client, waits for the server to finish.
set -e
rm -f port
java -cp build rm.Server > server.out &
java -cp build rm.Client "${1:-200}" > client.out
wait
cat server.out client.out
