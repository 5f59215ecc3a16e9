package shop;

/** 1,500 products, their SKUs read 1,100 times over: 1,650,000 getter calls. */
public final class Main {
    public static void main(String[] args) {
        Shop shop = new Shop(1500);
        long s = shop.stock(1100);
        long h = shop.restock(s);
        System.out.println("sum " + s + " hash " + Long.toHexString(h));
    }
}
