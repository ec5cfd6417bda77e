package io.tablecast.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot service that answers product lookups from a live mirror of the products table,
 * wired by {@code tablecast-spring-boot-starter} from {@code application.yaml}: the client, the
 * {@code products} mirror, readiness held until it is ready, health, metrics and graceful shutdown.
 * Against the demo: {@code bin/tablecast demo --keep-running}, then run this class.
 */
@SpringBootApplication
public class ProductServiceApplication {

  /** Starts the service. */
  public static void main(String[] args) {
    SpringApplication.run(ProductServiceApplication.class, args);
  }
}
