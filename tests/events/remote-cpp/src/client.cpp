// The client process: sends N requests to the server one after another. Each request
// prepares (40 us of CPU), calls the server through the stub and checks the answer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "clock.h"
#include "wire.h"

// The client's side of the remote call: the id goes out, the answer comes back.
class Stub {
public:
    explicit Stub(int fd) : fd_(fd) {}
    std::int64_t call(std::int64_t id);
    void close_it();

private:
    int fd_;
};

class Client {
public:
    std::int64_t request(Stub& stub, std::int64_t id);
};

std::int64_t Stub::call(std::int64_t id) {
    std::int64_t r = -1;
    if (!io(fd_, &id, sizeof id, false) || !io(fd_, &r, sizeof r, true)) std::abort();
    return r;
}

void Stub::close_it() {
    std::int64_t end = -1;
    io(fd_, &end, sizeof end, false);
    close(fd_);
}

std::int64_t Client::request(Stub& stub, std::int64_t id) {
    Clock::burn(40000);
    std::int64_t r = stub.call(id);
    if (r / 2 != id) {
        std::fprintf(stderr, "wrong answer %lld to %lld\n", static_cast<long long>(r),
                     static_cast<long long>(id));
        std::abort();
    }
    return r;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 200;
    std::FILE* f = nullptr;
    for (int i = 0; !(f = std::fopen("port", "r")); i++) {
        if (i > 3000) {
            std::fprintf(stderr, "no server\n");
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    int port = 0;
    if (std::fscanf(f, "%d", &port) != 1) return 1;
    std::fclose(f);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = sockaddr_in();
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        std::perror("client connect");
        return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Stub stub(fd);
    Client c;
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += c.request(stub, i);
    stub.close_it();
    std::printf("requests %d %lld\n", n, sum);
    return 0;
}
