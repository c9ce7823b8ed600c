package io.floe.spark.streaming;

import io.floe.spark.commit.TableLoader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * The live tables of the stream sinks in this driver, one per query and table loader, handed from
 * one epoch's sink to the next. Spark builds a new {@link FloeStreamingWrite} for every epoch
 * (its micro-batch write rule runs once per batch), so a table kept in the sink itself was loaded
 * through the catalog again at every epoch, parsing the whole table metadata each time.
 *
 * <p>A sink takes the table out while it commits and puts it back only after a commit whose
 * outcome it knows; after any failure the next epoch loads the table afresh. A table taken from
 * here is always refreshed before use, so it never shows a state older than the catalog's.
 * Driver-side only; never shipped.
 */
final class SinkTables {
  // stopped queries leave their last table here; the oldest go once more queries than this ran
  private static final int KEPT = 32;

  private record Key(String queryId, TableLoader loader) {}

  private static final Map<Key, Table> LIVE =
      new LinkedHashMap<>(KEPT, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Table> eldest) {
          return size() > KEPT;
        }
      };

  private SinkTables() {}

  /** Removes and returns the table the query's previous epoch committed to, or null. */
  static synchronized Table take(String queryId, TableLoader loader) {
    return LIVE.remove(new Key(queryId, loader));
  }

  /** Keeps the table for the query's next epoch. */
  static synchronized void keep(String queryId, TableLoader loader, Table table) {
    LIVE.put(new Key(queryId, loader), table);
  }
}
