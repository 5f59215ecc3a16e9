package rm;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.net.InetAddress;
import java.net.Socket;

/**
 * The client process: sends N requests to the server one after another. Each request
 * prepares (40 us of CPU), calls the server through the stub and checks the answer.
 */
public class Client {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        File port = new File("port");
        for (int i = 0; !port.exists(); i++) {
            if (i > 3000) {
                throw new IllegalStateException("no server");
            }
            Thread.sleep(10);
        }
        FileInputStream f = new FileInputStream(port);
        byte[] b = new byte[16];
        int len = f.read(b);
        f.close();
        Socket s = new Socket(InetAddress.getLoopbackAddress(),
                Integer.parseInt(new String(b, 0, len, "UTF-8").trim()));
        s.setTcpNoDelay(true);
        Stub stub = new Stub(s);
        Client c = new Client();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += c.request(stub, i);
        }
        stub.close();
        System.out.println("requests " + n + " " + sum);
    }

    long request(Stub stub, long id) throws Exception {
        Clock.burn(40_000);
        long r = stub.call(id);
        if (r / 2 != id) {
            throw new IllegalStateException("wrong answer " + r + " to " + id);
        }
        return r;
    }
}

/** The client's side of the remote call: the id goes out, the answer comes back. */
class Stub {
    private final Socket s;
    private final DataInputStream in;
    private final DataOutputStream out;

    Stub(Socket s) throws Exception {
        this.s = s;
        in = new DataInputStream(s.getInputStream());
        out = new DataOutputStream(s.getOutputStream());
    }

    long call(long id) throws Exception {
        out.writeLong(id);
        out.flush();
        return in.readLong();
    }

    void close() throws Exception {
        out.writeLong(-1);
        out.flush();
        s.close();
    }
}
