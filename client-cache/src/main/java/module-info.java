/**
 * Tablecast's Java client: live, in-memory mirrors of cached tables, kept current by a Tablecast
 * server. The API is the package {@code io.tablecast.client}, entered through {@code
 * TablecastClient.builder()}; the engine in {@code io.tablecast.client.internal} (connection,
 * session protocol, stream) is not exported.
 *
 * <p>Typed rows are mapped by Jackson: on the module path, open the package of your row types to
 * {@code com.fasterxml.jackson.databind}.
 */
// micrometer-core is an automatic module (it has no module-info of its own)
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.tablecast.client {
  exports io.tablecast.client;

  requires transitive com.fasterxml.jackson.databind; // Builder.objectMapper(ObjectMapper)
  requires com.fasterxml.jackson.datatype.jsr310;
  requires io.netty.buffer;
  requires io.netty.codec; // TooLongFrameException: a frame over maxFrameBytes, explained
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;
  requires io.tablecast.protocol;
  requires org.slf4j;
  requires transitive com.github.benmanes.caffeine; // NearCache.stats() returns its CacheStats
  // TablecastClientMetrics only (its API names MeterBinder, MeterRegistry): optional
  requires static transitive micrometer.core;
}
