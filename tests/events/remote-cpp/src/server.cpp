// The server process: takes one client connection on localhost and answers its requests
// until the id -1. Each request's handling measures its own on-CPU work twice: inside the
// handler's body (WORK) and around its call (OUTER); the call's own CPU time lies between
// (a preemption or wake-up landing between the call's edge and the body charges its cost
// there). Printed as `srv ID WORK_NS OUTER_NS`, the ground truth the analysis is checked
// against.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "clock.h"
#include "wire.h"

// Handles one request: 150 to 450 us of CPU, by id.
class Handler {
public:
    std::int64_t work = 0;
    std::int64_t handle(std::int64_t id);
};

std::int64_t Handler::handle(std::int64_t id) {
    std::int64_t c0 = Clock::cpu();
    std::uint64_t x = Clock::burn(150000 + (id * 7919 % 300) * 1000);
    work = Clock::cpu() - c0;
    return id * 2 + static_cast<std::int64_t>(x & 1);
}

int main() {
    int ss = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = sockaddr_in();
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (ss < 0 || bind(ss, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(ss, 1) != 0 ||
        getsockname(ss, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        std::perror("server socket");
        return 1;
    }
    std::FILE* f = std::fopen("port.tmp", "w");
    if (!f) return 1;
    std::fprintf(f, "%d", ntohs(a.sin_port));
    std::fclose(f);
    if (std::rename("port.tmp", "port") != 0) return 1;
    int s = accept(ss, nullptr, nullptr);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Handler h;
    std::string log;
    for (;;) {
        std::int64_t id = 0;
        if (!io(s, &id, sizeof id, true) || id < 0) break;
        std::int64_t c0 = Clock::cpu();
        std::int64_t answer = h.handle(id);
        std::int64_t outer = Clock::cpu() - c0;
        if (!io(s, &answer, sizeof answer, false)) return 1;
        log += "srv " + std::to_string(id) + " " + std::to_string(h.work) + " " + std::to_string(outer) + "\n";
    }
    close(s);
    close(ss);
    std::fputs(log.c_str(), stdout);
    return 0;
}
