package io.tablecast.examples.spring;

import java.math.BigDecimal;

/**
 * A row of the products table, mapped by the application's {@code ObjectMapper}: its {@code
 * spring.jackson.property-naming-strategy: SNAKE_CASE} maps the column {@code in_stock} to {@code
 * inStock}; decimals arrive exactly as {@code BigDecimal}.
 */
public record Product(int id, String name, BigDecimal price, boolean inStock) {}
