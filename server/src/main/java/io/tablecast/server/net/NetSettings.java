package io.tablecast.server.net;

import io.tablecast.server.config.ListenSettings;
import io.tablecast.server.config.WriteBufferSettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What the {@link NettyServer} takes of the configuration (the server builds it from its {@code
 * ServerConfig}; docs/CONFIGURATION.md describes each key).
 *
 * @param serverName name sent to clients in the welcome
 * @param listen the address and port to bind
 * @param heartbeat the heartbeat announced in the welcome; also paces the idle guard's pings
 * @param handshakeTimeout a connection must complete its hello within this time
 * @param maxFrameBytes longest inbound frame accepted from a client
 * @param writeBuffer the write-buffer water marks of every client channel
 * @param idleTimeout a session from which nothing arrived for this long is closed
 * @param maxConnections most simultaneous connections; the next one is refused
 * @param staticDir directory served over HTTP GET at {@code /}; null = no static files
 * @param staticClientDir directory served over HTTP GET at {@code /client/}; null = not mapped
 * @param tls TLS on the listening port; null = plaintext only
 * @param access the bearer token {@code GET /metrics} requires and the origins of web pages,
 *     besides the server's own, that may open a WebSocket session, as they are now
 */
public record NetSettings(
    String serverName,
    ListenSettings listen,
    Duration heartbeat,
    Duration handshakeTimeout,
    int maxFrameBytes,
    WriteBufferSettings writeBuffer,
    Duration idleTimeout,
    int maxConnections,
    Path staticDir,
    Path staticClientDir,
    TlsConfig tls,
    WebAccess access) {}
