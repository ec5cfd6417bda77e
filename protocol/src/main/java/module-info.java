/**
 * Tablecast's wire protocol: the messages, their CBOR and JSON encodings and the Netty framing,
 * shared by the server and the clients. Jackson reads the message records reflectively, hence the
 * {@code opens}.
 */
module io.tablecast.protocol {
  exports io.tablecast.protocol;
  exports io.tablecast.protocol.netty;
  exports io.tablecast.protocol.row;

  opens io.tablecast.protocol to
      com.fasterxml.jackson.databind;

  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.cbor;
  requires transitive io.netty.buffer;
  requires io.netty.codec;
  requires transitive io.netty.transport;
}
