package corpus;

public class Ünïcödé {
    private final String wört;

    public Ünïcödé(String wört) {
        this.wört = wört;
    }

    public String größe() {
        String ñ = "ß→∑ 😀 " + wört;
        return ñ + " " + ñ.length();
    }
}
