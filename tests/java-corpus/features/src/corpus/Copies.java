package corpus;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/** A clone and a deserialised copy are new objects: each must get its own object ID. */
class Sheep implements Cloneable, Serializable {
    private static final long serialVersionUID = 1L;
    String name;

    Sheep(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    @Override
    public Sheep clone() {
        try {
            return (Sheep) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }
}

class Copies {
    static String run() throws Exception {
        Sheep dolly = new Sheep("dolly");
        Sheep twin = dolly.clone();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(dolly);
        }
        Sheep thawed;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            thawed = (Sheep) in.readObject();
        }
        return dolly.name() + " " + twin.name() + " " + thawed.name();
    }
}
