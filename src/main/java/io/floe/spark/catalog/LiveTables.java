package io.floe.spark.catalog;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.spark.util.OptionValues;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables a catalog has loaded, kept so that loading one again is a refresh: the catalog is
 * still asked for the table's current metadata every time, but metadata that has not changed is
 * not read and parsed again, and its snapshots keep their manifest lists in memory.
 *
 * <p>Every load returns a {@link PinnedTableOperations read view} of the metadata current at that
 * moment, so a later refresh (by another query) never changes a table a query already holds. A
 * refresh that fails (the table was dropped, a file is missing, the catalog is unreachable) drops
 * the entry and loads the table afresh from the catalog, which gives the error a fresh load gives.
 *
 * <p>Configured with the official runtime's catalog options: {@code cache-enabled} (default true)
 * and {@code cache.expiration-interval-ms} (default 30 s after last use; 0 turns the cache off,
 * negative keeps entries until the table is dropped, renamed, altered or invalidated). Unlike the
 * official runtime's cache, this one never serves a stale version. Thread-safe.
 */
final class LiveTables {
  private static final Logger LOG = LoggerFactory.getLogger(LiveTables.class);
  private static final long MAX_TABLES = 1000;

  private final Cache<TableIdentifier, Table> tables;

  private LiveTables(Cache<TableIdentifier, Table> tables) {
    this.tables = tables;
  }

  /**
   * The cache the catalog options ask for; with caching off every load goes to the catalog.
   *
   * @throws IllegalArgumentException naming the option when a value is not a boolean or a number
   */
  static LiveTables fromOptions(String catalogName, Map<String, String> options) {
    String action = "Cannot create catalog " + catalogName;
    String enabledValue = options.get(CatalogProperties.CACHE_ENABLED);
    boolean enabled =
        enabledValue == null
            ? CatalogProperties.CACHE_ENABLED_DEFAULT
            : OptionValues.parseBoolean(action, CatalogProperties.CACHE_ENABLED, enabledValue);
    String expirationValue = options.get(CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS);
    long expirationMs =
        expirationValue == null
            ? CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS_DEFAULT
            : OptionValues.parseLong(
                action,
                CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS,
                expirationValue,
                "a number of milliseconds");
    if (!enabled || expirationMs == 0) {
      return new LiveTables(null);
    }
    Caffeine<Object, Object> builder = Caffeine.newBuilder().maximumSize(MAX_TABLES);
    if (expirationMs > 0) {
      builder.expireAfterAccess(Duration.ofMillis(expirationMs));
    }
    return new LiveTables(builder.build());
  }

  /**
   * The table's current state: a read view of the cached table after a refresh, or of a table
   * {@code loader} loads when none is cached or the refresh failed.
   *
   * @throws NoSuchTableException as the loader throws it
   */
  Table load(TableIdentifier ident, Function<TableIdentifier, Table> loader) {
    if (tables == null) {
      return loader.apply(ident);
    }
    Table cached = tables.getIfPresent(ident);
    if (cached != null) {
      TableMetadata current = refreshed(ident, cached);
      if (current != null) {
        return pinned(cached, current);
      }
      tables.invalidate(ident);
    }
    Table loaded = loader.apply(ident);
    if (!(loaded instanceof BaseTable)) {
      // metadata tables and foreign table types are served as loaded
      return loaded;
    }
    TableMetadata current = ((BaseTable) loaded).operations().current();
    if (current == null) {
      return loaded;
    }
    tables.put(ident, loaded);
    return pinned(loaded, current);
  }

  /** Forgets a table, after it was dropped, renamed or changed, or when Spark asks. */
  void invalidate(TableIdentifier ident) {
    if (tables != null) {
      tables.invalidate(ident);
    }
  }

  private static TableMetadata refreshed(TableIdentifier ident, Table table) {
    try {
      return ((BaseTable) table).operations().refresh();
    } catch (RuntimeException e) {
      LOG.debug("Reloading {}: refreshing the cached table failed: {}", ident, e.toString());
      return null;
    }
  }

  private static Table pinned(Table live, TableMetadata current) {
    BaseTable table = (BaseTable) live;
    TableOperations ops = new PinnedTableOperations(table.operations(), current, table.name());
    return new BaseTable(ops, table.name(), table.reporter());
  }
}
