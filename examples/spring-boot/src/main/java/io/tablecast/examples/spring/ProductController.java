package io.tablecast.examples.spring;

import io.tablecast.client.TableMirror;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Products by key, from memory: no database round trip per request. */
@RestController
public class ProductController {
  private final TableMirror<Product> products;

  /**
   * The mirror declared under {@code tablecast.client.mirrors.products}, injected by its row type.
   */
  public ProductController(TableMirror<Product> products) {
    this.products = products;
  }

  /** {@code GET /products/42}: the product, or 404. */
  @GetMapping("/products/{id}")
  public ResponseEntity<Product> product(@PathVariable("id") long id) {
    Product product = products.get(id); // a memory lookup
    return product == null ? ResponseEntity.notFound().build() : ResponseEntity.ok(product);
  }

  /** {@code GET /products}: every product, by id. */
  @GetMapping("/products")
  public List<Product> all() {
    return products.stream().sorted(Comparator.comparingInt(Product::id)).toList();
  }
}
