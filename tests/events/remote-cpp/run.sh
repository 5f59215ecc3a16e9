#!/bin/sh
# Starts the server, runs N requests from the client, waits for the server to finish.
set -e
rm -f port
./build/server > server.out &
./build/client "${1:-200}" > client.out
wait
cat server.out client.out
