package rm;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The server process: takes one client connection on localhost and answers its requests
 * until the id -1. Each request's handling measures its own on-CPU work twice: inside the
 * handler's body (WORK) and around its call (OUTER); the call's own CPU time lies between
 * (a preemption or wake-up landing between the call's edge and the body charges its cost
 * there). Printed as `srv ID WORK_NS OUTER_NS`, the ground truth the analysis is checked
 * against.
 */
public class Server {
    public static void main(String[] args) throws Exception {
        ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        File tmp = new File("port.tmp");
        FileOutputStream f = new FileOutputStream(tmp);
        f.write(Integer.toString(ss.getLocalPort()).getBytes("UTF-8"));
        f.close();
        if (!tmp.renameTo(new File("port"))) {
            throw new IllegalStateException("cannot publish the port");
        }
        Socket s = ss.accept();
        s.setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        Handler h = new Handler();
        StringBuilder log = new StringBuilder();
        while (true) {
            long id = in.readLong();
            if (id < 0) {
                break;
            }
            long c0 = Clock.cpu();
            long answer = h.handle(id);
            long outer = Clock.cpu() - c0;
            out.writeLong(answer);
            out.flush();
            log.append("srv ").append(id).append(' ').append(h.work).append(' ').append(outer).append('\n');
        }
        s.close();
        ss.close();
        System.out.print(log);
    }
}

/** Handles one request: 150 to 450 us of CPU, by id. */
class Handler {
    long work;

    long handle(long id) {
        long c0 = Clock.cpu();
        long x = Clock.burn(150_000 + (id * 7919 % 300) * 1000);
        work = Clock.cpu() - c0;
        return id * 2 + (x & 1);
    }
}
