package io.floe.spark.distributed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import io.floe.spark.commit.ForwardingTableOperations;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.Configurable;

/**
 * A test catalog that wraps a real Iceberg catalog (hadoop or JDBC, chosen by {@code delegate-type})
 * and records every call made to it, and every refresh or commit of a table it loaded, with the
 * process id and thread name of the caller. Records are appended as lines to the file named by
 * {@code record-to}, so calls from any JVM on the machine land in one place.
 *
 * <p>Use it as {@code spark.sql.catalog.<name>.catalog-impl=io.floe.spark.distributed.RecordingCatalog}
 * with {@code delegate-type}, {@code record-to} and the delegate's own options ({@code warehouse},
 * {@code uri}, ...). Creating the catalog is recorded too ({@code initialize}), so a catalog built on
 * an executor shows up even if it is never used.
 */
public final class RecordingCatalog implements Catalog, SupportsNamespaces, Configurable<Object> {
  /** The option naming the file calls are appended to. */
  public static final String RECORD_TO = "record-to";
  /** The option naming the wrapped catalog's type (hadoop, jdbc). */
  public static final String DELEGATE_TYPE = "delegate-type";

  /** One recorded call: which process and thread made it, and what it was. */
  public record Call(long pid, String thread, String call) {
    static Call parse(String line) {
      String[] parts = line.split("\t", 3);
      return new Call(Long.parseLong(parts[0]), parts[1], parts[2]);
    }
  }

  private Object conf;
  private Catalog delegate;
  private SupportsNamespaces namespaces;
  private Path recordTo;
  private String name;

  @Override
  public void setConf(Object conf) {
    this.conf = conf;
  }

  @Override
  public void initialize(String catalogName, Map<String, String> properties) {
    this.name = catalogName;
    String file = properties.get(RECORD_TO);
    if (file == null) {
      throw new IllegalArgumentException(
          "Cannot create recording catalog " + catalogName + ": option " + RECORD_TO + " is missing");
    }
    this.recordTo = Paths.get(file);
    record("initialize");
    Map<String, String> delegateProperties = new HashMap<>(properties);
    delegateProperties.remove(CatalogProperties.CATALOG_IMPL);
    delegateProperties.remove(RECORD_TO);
    delegateProperties.put(
        CatalogUtil.ICEBERG_CATALOG_TYPE,
        Objects.requireNonNullElse(delegateProperties.remove(DELEGATE_TYPE), "hadoop"));
    this.delegate = CatalogUtil.buildIcebergCatalog(catalogName, delegateProperties, conf);
    this.namespaces = (SupportsNamespaces) delegate;
  }

  /** Every call recorded in a file so far, in the order written. */
  public static List<Call> calls(Path file) {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      List<Call> calls = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          calls.add(Call.parse(line));
        }
      }
      return calls;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void record(String call) {
    String line =
        ProcessHandle.current().pid() + "\t" + Thread.currentThread().getName() + "\t" + call + "\n";
    synchronized (RecordingCatalog.class) {
      try {
        // one small O_APPEND write per call, so lines from several processes do not interleave
        Files.write(
            recordTo,
            line.getBytes(StandardCharsets.UTF_8),
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND,
            StandardOpenOption.WRITE);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    record("listTables " + namespace);
    return delegate.listTables(namespace);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    record("tableExists " + identifier);
    return delegate.tableExists(identifier);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    record("dropTable " + identifier);
    return delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    record("renameTable " + from + " " + to);
    delegate.renameTable(from, to);
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    record("loadTable " + identifier);
    return wrap(delegate.loadTable(identifier));
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    record("invalidateTable " + identifier);
    delegate.invalidateTable(identifier);
  }

  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    record("registerTable " + identifier);
    return wrap(delegate.registerTable(identifier, metadataFileLocation));
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    record("buildTable " + identifier);
    return new RecordingTableBuilder(identifier, delegate.buildTable(identifier, schema));
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    record("createNamespace " + namespace);
    namespaces.createNamespace(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    record("listNamespaces " + namespace);
    return namespaces.listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    record("loadNamespaceMetadata " + namespace);
    return namespaces.loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    record("dropNamespace " + namespace);
    return namespaces.dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    record("setProperties " + namespace);
    return namespaces.setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    record("removeProperties " + namespace);
    return namespaces.removeProperties(namespace, properties);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    record("namespaceExists " + namespace);
    return namespaces.namespaceExists(namespace);
  }

  @Override
  public String toString() {
    return "RecordingCatalog{" + name + " over " + delegate + "}";
  }

  private Table wrap(Table table) {
    if (table instanceof BaseTable) {
      TableOperations ops = ((HasTableOperations) table).operations();
      return new BaseTable(new RecordingOperations(table.name(), ops), table.name());
    }
    return table;
  }

  /** Records the calls of a table builder that reach the catalog (create and replace). */
  private final class RecordingTableBuilder implements TableBuilder {
    private final TableIdentifier identifier;
    private final TableBuilder builder;

    RecordingTableBuilder(TableIdentifier identifier, TableBuilder builder) {
      this.identifier = identifier;
      this.builder = builder;
    }

    @Override
    public TableBuilder withPartitionSpec(PartitionSpec spec) {
      builder.withPartitionSpec(spec);
      return this;
    }

    @Override
    public TableBuilder withSortOrder(SortOrder sortOrder) {
      builder.withSortOrder(sortOrder);
      return this;
    }

    @Override
    public TableBuilder withLocation(String location) {
      builder.withLocation(location);
      return this;
    }

    @Override
    public TableBuilder withProperties(Map<String, String> properties) {
      builder.withProperties(properties);
      return this;
    }

    @Override
    public TableBuilder withProperty(String key, String value) {
      builder.withProperty(key, value);
      return this;
    }

    @Override
    public Table create() {
      record("create " + identifier);
      return wrap(builder.create());
    }

    @Override
    public Transaction createTransaction() {
      record("createTransaction " + identifier);
      return builder.createTransaction();
    }

    @Override
    public Transaction replaceTransaction() {
      record("replaceTransaction " + identifier);
      return builder.replaceTransaction();
    }

    @Override
    public Transaction createOrReplaceTransaction() {
      record("createOrReplaceTransaction " + identifier);
      return builder.createOrReplaceTransaction();
    }
  }

  /** Records the refreshes and commits of a table loaded through this catalog. */
  private final class RecordingOperations extends ForwardingTableOperations {
    private final String tableName;

    RecordingOperations(String tableName, TableOperations ops) {
      super(ops);
      this.tableName = tableName;
    }

    @Override
    public TableMetadata refresh() {
      record("refresh " + tableName);
      return ops.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      record("commit " + tableName);
      ops.commit(base, metadata);
    }
  }
}
