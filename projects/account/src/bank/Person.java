package bank;

/** A customer with an identifying number and one account. */
public class Person {
    public static int nextSin = 123456789;
    public int sin;
    public String name;
    public Account account;

    public Person(String name) {
        this.sin = nextSin++;
        this.name = name;
    }

    public int getSin() {
        return sin;
    }

    public String getName() {
        return name;
    }

    public Account getAccount() {
        return account;
    }

    public void setAccount(Account account) {
        this.account = account;
    }

    @Override
    public String toString() {
        return "Person[sin=" + sin + ", name=" + name + "] " + account;
    }
}
