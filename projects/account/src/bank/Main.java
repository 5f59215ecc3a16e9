package bank;

/** Opens three accounts, moves money between them and prints who owns what. */
public class Main {
    public static void main(String[] args) {
        Person will = new Person("Will");
        Account willAcct = new Account(1000.0);
        will.setAccount(willAcct);

        Person duane = new Person("Duane");
        Account duaneAcct = new Account(1000.0);
        duane.setAccount(duaneAcct);

        Person jonathan = new Person("Jonathan");
        Account jonathanAcct = new Account(1000.0);
        jonathan.setAccount(jonathanAcct);

        duaneAcct.transfer(100.0, willAcct);
        jonathanAcct.transfer(100.0, willAcct);
        // Overdrawing is refused and reported on stderr.
        willAcct.transfer(5000.0, duaneAcct);

        System.out.println(will);
        System.out.println(duane);
        System.out.println(jonathan);
    }
}
