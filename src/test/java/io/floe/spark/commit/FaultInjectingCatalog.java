package io.floe.spark.commit;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.hadoop.Configurable;

/**
 * A test catalog that wraps a real Iceberg catalog (hadoop or JDBC, chosen by {@code
 * delegate-type}) and hands out tables whose operations are the real ones, except that a commit
 * can be given a fault a real catalog cannot produce on demand: the commit lands and its answer is
 * lost, the catalog reports a conflict, or something happens just before the real commit.
 *
 * <p>Use it as {@code spark.sql.catalog.<name>.catalog-impl=io.floe.spark.commit.FaultInjectingCatalog}
 * with {@code delegate-type} and the delegate's own options. Faults are queued per table with
 * {@link #inject}; each commit takes at most one.
 */
public final class FaultInjectingCatalog implements Catalog, SupportsNamespaces, Configurable<Object> {
  /** The option naming the wrapped catalog's type (hadoop, jdbc). */
  public static final String DELEGATE_TYPE = "delegate-type";

  /** What one commit does instead of (or around) the real commit. */
  @FunctionalInterface
  public interface Fault {
    void commit(TableOperations real, TableMetadata base, TableMetadata metadata);
  }

  /** The commit lands, then the catalog's answer is lost. */
  public static final Fault COMMIT_THEN_UNKNOWN =
      (real, base, metadata) -> {
        real.commit(base, metadata);
        throw new CommitStateUnknownException(new RuntimeException("injected: the answer was lost"));
      };

  /** The catalog reports a conflict without committing. */
  public static final Fault CONFLICT_BEFORE_COMMIT =
      (real, base, metadata) -> {
        throw new CommitFailedException("injected: conflict");
      };

  /** The request is lost before it reaches the catalog, and the caller cannot tell. */
  public static final Fault UNKNOWN_WITHOUT_COMMIT =
      (real, base, metadata) -> {
        throw new CommitStateUnknownException(new RuntimeException("injected: no answer"));
      };

  private static final Map<String, Deque<Fault>> FAULTS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> REFRESH_FAILURES = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> LOADS = new ConcurrentHashMap<>();

  private Object conf;
  private String name;
  private Catalog delegate;
  private SupportsNamespaces namespaces;

  /** Queues faults for the next commits of a table of the named catalog. */
  public static void inject(String catalogName, String table, Fault... faults) {
    Deque<Fault> queue = FAULTS.computeIfAbsent(key(catalogName, table), k -> new ArrayDeque<>());
    synchronized (queue) {
      queue.addAll(List.of(faults));
    }
  }

  /** The commit lands, then the next refreshes of the table fail. */
  public static Fault commitThenFailRefreshes(String catalogName, String table, int refreshes) {
    return (real, base, metadata) -> {
      real.commit(base, metadata);
      REFRESH_FAILURES.computeIfAbsent(key(catalogName, table), k -> new AtomicInteger()).set(refreshes);
    };
  }

  /** How often a table of the named catalog was loaded since the last {@link #clear}. */
  public static int loads(String catalogName, String table) {
    AtomicInteger loads = LOADS.get(key(catalogName, table));
    return loads == null ? 0 : loads.get();
  }

  /** Drops the faults not used yet and the load counts. */
  public static void clear() {
    FAULTS.clear();
    REFRESH_FAILURES.clear();
    LOADS.clear();
  }

  private static String key(String catalogName, String table) {
    return catalogName + "/" + TableIdentifier.parse(table);
  }

  private static Fault next(String key) {
    Deque<Fault> queue = FAULTS.get(key);
    if (queue == null) {
      return null;
    }
    synchronized (queue) {
      return queue.poll();
    }
  }

  @Override
  public void setConf(Object newConf) {
    this.conf = newConf;
  }

  @Override
  public void initialize(String catalogName, Map<String, String> properties) {
    this.name = catalogName;
    Map<String, String> delegateProperties = new HashMap<>(properties);
    delegateProperties.remove(CatalogProperties.CATALOG_IMPL);
    delegateProperties.put(
        CatalogUtil.ICEBERG_CATALOG_TYPE,
        Objects.requireNonNull(delegateProperties.remove(DELEGATE_TYPE), "delegate-type is null"));
    this.delegate = CatalogUtil.buildIcebergCatalog(catalogName, delegateProperties, conf);
    this.namespaces = (SupportsNamespaces) delegate;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    Table table = delegate.loadTable(identifier);
    LOADS.computeIfAbsent(key(name, identifier.toString()), k -> new AtomicInteger()).incrementAndGet();
    if (table instanceof BaseTable) {
      TableOperations ops = ((HasTableOperations) table).operations();
      return new BaseTable(new FaultyOperations(key(name, identifier.toString()), ops), table.name());
    }
    return table;
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(namespace);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    delegate.renameTable(from, to);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return delegate.buildTable(identifier, schema);
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    namespaces.createNamespace(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return namespaces.listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return namespaces.loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    return namespaces.dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces.setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    return namespaces.removeProperties(namespace, properties);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return namespaces.namespaceExists(namespace);
  }

  @Override
  public String toString() {
    return "FaultInjectingCatalog{" + name + "}";
  }

  /** The real operations of one table, with the queued faults applied to its commits. */
  private static final class FaultyOperations extends ForwardingTableOperations {
    private final String key;

    FaultyOperations(String key, TableOperations ops) {
      super(ops);
      this.key = key;
    }

    @Override
    public TableMetadata refresh() {
      AtomicInteger failures = REFRESH_FAILURES.get(key);
      if (failures != null && failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new RuntimeIOException(new IOException("injected: cannot read the table"));
      }
      return ops.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      Fault fault = next(key);
      if (fault == null) {
        ops.commit(base, metadata);
      } else {
        fault.commit(ops, base, metadata);
      }
    }
  }
}
