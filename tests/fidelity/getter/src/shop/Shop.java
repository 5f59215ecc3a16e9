package shop;

/** Reads every product's SKU many times (stock) and does some real work (restock). */
public final class Shop {
    private final Product[] products;

    public Shop(int n) {
        products = new Product[n];
        for (int i = 0; i < n; i++) {
            products[i] = new Product(i * 7919L);
        }
    }

    public long stock(int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Product p : products) {
                sum += p.getSku();
            }
        }
        return sum;
    }

    public long restock(long seed) {
        long h = seed;
        for (int i = 0; i < 20_000_000; i++) {
            h = (h ^ i) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
        }
        return h;
    }
}
