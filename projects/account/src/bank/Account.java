package bank;

/** A bank account that can take deposits, refuse overdrafts and transfer money. */
public class Account {
    public static int nextNumber = 654321;
    public int number;
    public double balance;

    public Account(double opening) {
        this.number = nextNumber++;
        this.balance = opening;
    }

    public int getNumber() {
        return number;
    }

    public double getBalance() {
        return balance;
    }

    public void deposit(double amount) {
        balance += amount;
    }

    public boolean withdraw(double amount) {
        if (balance < amount) {
            System.err.println("Sorry, not enough money in account " + number);
            return false;
        }
        balance -= amount;
        return true;
    }

    public boolean transfer(double amount, Account to) {
        if (withdraw(amount)) {
            to.deposit(amount);
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "Account[number=" + number + ", balance=" + balance + "]";
    }
}
