package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resume as frames: {@code resumed}, then every retained batch after the resume position that has
 * changes the session may see, filtered to its tables and policy. The retained batches are taken
 * when the resume is accepted (they are immutable, so later evictions from the {@link ResumeBuffer}
 * do not matter) and encoded one by one as the channel takes them, so a long replay is paced by the
 * client instead of being queued at once; a batch too large for one frame is replayed in {@link
 * BatchParts}. Written by a {@link CatchUpSender}.
 */
final class ResumeReplay implements CatchUpSender.Frames {

  private static final Logger LOG = LoggerFactory.getLogger(ResumeReplay.class);

  private final Subscriber session;
  private final Message.Resumed resumed;
  private final Iterator<ResumeBuffer.Retained> batches;

  /** Where the batches come from, for the log: the resume buffer or the stream. */
  private final String from;

  private final Set<String> tables;

  /** Primary keys of the session's tables, taken on the hub thread (the images are its own). */
  private final Map<String, List<String>> primaryKeys;

  private boolean resumedSent;

  /** The retained batch being written in parts, or null. */
  private BatchParts parts;

  private int sent;

  ResumeReplay(
      Subscriber session,
      Message.Resumed resumed,
      List<ResumeBuffer.Retained> batches,
      Map<String, List<String>> primaryKeys) {
    this(session, resumed, batches.iterator(), primaryKeys, "retained batches");
  }

  /**
   * A replay of {@code batches}, taken one by one as the channel takes them ({@code from} names
   * them in the log).
   */
  ResumeReplay(
      Subscriber session,
      Message.Resumed resumed,
      Iterator<ResumeBuffer.Retained> batches,
      Map<String, List<String>> primaryKeys,
      String from) {
    this.session = session;
    this.resumed = resumed;
    this.batches = batches;
    this.from = from;
    this.tables = Set.copyOf(resumed.tables());
    this.primaryKeys = primaryKeys;
  }

  @Override
  public Message next() {
    if (!resumedSent) {
      resumedSent = true;
      return resumed;
    }
    if (parts != null) {
      Message m = parts.next();
      if (m != null) {
        return m;
      }
      parts = null;
    }
    while (batches.hasNext()) {
      ResumeBuffer.Retained r = batches.next();
      List<Message.Change> mine =
          PolicyFilter.apply(
              session.policy(),
              PolicyFilter.ofTables(r.changes(), tables),
              t -> primaryKeys.getOrDefault(t, List.of()));
      if (!mine.isEmpty()) {
        sent++;
        if (BatchParts.fitOneFrame(mine)) {
          return new Message.ChangeBatch(r.position(), r.captureMillis(), mine);
        }
        parts = new BatchParts(null, r.position(), r.captureMillis(), mine);
        return parts.next();
      }
    }
    LOG.info(
        "{} resumed {} from position {} ({} {} replayed)",
        session,
        resumed.tables(),
        resumed.position(),
        sent,
        from);
    return null;
  }
}
