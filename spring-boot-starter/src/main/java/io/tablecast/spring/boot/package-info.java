/**
 * Spring Boot 3 auto-configuration of the Tablecast Java client: a {@code TablecastClient} from
 * {@code tablecast.client.*} properties, {@code TableMirror} beans declared under {@code
 * tablecast.client.mirrors}, readiness held until the mirror beans are ready, an Actuator health
 * indicator, Micrometer metrics, and the client's close after the web server stopped. Uses only the
 * client's API package {@code io.tablecast.client}. See docs/CLIENT.md, "Spring Boot".
 */
package io.tablecast.spring.boot;
