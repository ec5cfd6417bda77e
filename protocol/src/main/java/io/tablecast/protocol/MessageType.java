package io.tablecast.protocol;

/** The stable wire code and JSON name of every {@link Message} type. */
public enum MessageType {
  HELLO(1, "hello", Message.Hello.class),
  WELCOME(2, "welcome", Message.Welcome.class),
  SUBSCRIBE(3, "subscribe", Message.Subscribe.class),
  SNAPSHOT_BEGIN(4, "snapshot_begin", Message.SnapshotBegin.class),
  SNAPSHOT_ROWS(5, "snapshot_rows", Message.SnapshotRows.class),
  SNAPSHOT_END(6, "snapshot_end", Message.SnapshotEnd.class),
  RESUMED(7, "resumed", Message.Resumed.class),
  CHANGE_BATCH(8, "change_batch", Message.ChangeBatch.class),
  ERROR(9, "error", Message.Error.class),
  PING(10, "ping", Message.Ping.class),
  PONG(11, "pong", Message.Pong.class),
  CHANGE_PART(12, "change_part", Message.ChangePart.class),
  TABLE_STATUS(13, "table_status", Message.TableStatus.class),
  SCHEMA_CHANGED(14, "schema_changed", Message.SchemaChanged.class),
  SYNC(15, "sync", Message.Sync.class),
  SYNCED(16, "synced", Message.Synced.class),
  FETCH(17, "fetch", Message.Fetch.class),
  FETCHED(18, "fetched", Message.Fetched.class);

  private static final MessageType[] BY_CODE = new MessageType[19];

  static {
    for (MessageType t : values()) {
      BY_CODE[t.code] = t;
    }
  }

  private final int code;
  private final String jsonName;
  private final Class<? extends Message> messageClass;

  MessageType(int code, String jsonName, Class<? extends Message> messageClass) {
    this.code = code;
    this.jsonName = jsonName;
    this.messageClass = messageClass;
  }

  /** The one-byte code that starts a binary frame. */
  public int code() {
    return code;
  }

  /** The value of the {@code "type"} field in JSON messages. */
  public String jsonName() {
    return jsonName;
  }

  public Class<? extends Message> messageClass() {
    return messageClass;
  }

  /**
   * Looks up a type by wire code.
   *
   * @throws ProtocolException with {@link ErrorCode#BAD_FRAME} naming the unknown code
   */
  public static MessageType forCode(int code) {
    MessageType t = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    if (t == null) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "unknown message type code " + code + ", expected 1.." + values().length);
    }
    return t;
  }

  /** Looks up a type by its JSON name. */
  public static MessageType forJsonName(String name) {
    for (MessageType t : values()) {
      if (t.jsonName.equals(name)) {
        return t;
      }
    }
    throw new ProtocolException(ErrorCode.BAD_FRAME, "unknown message type \"" + name + "\"");
  }

  static MessageType of(Message m) {
    for (MessageType t : values()) {
      if (t.messageClass == m.getClass()) {
        return t;
      }
    }
    throw new IllegalStateException("no message type for " + m.getClass());
  }
}
