package shop;

/** A product: its getter is the one-line method called millions of times. */
public final class Product {
    private final long sku;

    public Product(long sku) {
        this.sku = sku;
    }

    public long getSku() {
        return sku;
    }
}
