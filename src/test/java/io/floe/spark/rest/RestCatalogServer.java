package io.floe.spark.rest;

import io.floe.spark.FloeCatalog;
import io.floe.spark.s3.InProcessS3;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.spark.sql.SparkSession;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Iceberg REST catalog on 127.0.0.1 for tests: Iceberg's {@code RESTCatalogAdapter} and
 * {@code RESTCatalogServlet} over a JDBC catalog in a SQLite file, served by Jetty, behind an
 * OAuth2 client-credentials token endpoint with short-lived tokens ({@link TokenIssuer}) and,
 * optionally, per-table vended S3 credentials ({@link CredentialVendor}). One per test class.
 */
public final class RestCatalogServer implements AutoCloseable {
  private final Server jetty;
  private final Catalog backend;
  private final TokenIssuer tokens;
  private final CredentialVendor vendor;
  private final RestGate gate;
  private final String clientId;
  private final String clientSecret;

  private RestCatalogServer(Builder builder, Catalog backend) {
    this.backend = backend;
    this.clientId = builder.clientId;
    this.clientSecret = builder.clientSecret;
    this.tokens = new TokenIssuer(clientId, clientSecret, builder.tokenLifetime, builder.valuePrefix + "TOKEN-");
    this.vendor =
        builder.vendingS3 == null
            ? null
            : new CredentialVendor(builder.vendingS3, builder.credentialLifetime, builder.valuePrefix);
    this.gate = new RestGate(tokens, vendor);
    this.jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addFilter(new FilterHolder(gate), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(
        new ServletHolder(
            new RESTCatalogServlet(new VendingAdapter(backend, builder.clientStorage, vendor))),
        "/*");
    jetty.setHandler(context);
  }

  /** A server whose SQLite file lives in {@code folder} and whose tables live in {@code warehouse}. */
  public static Builder builder(Path folder, String warehouse) {
    return new Builder(folder, warehouse);
  }

  /** How to build a {@link RestCatalogServer}. */
  public static final class Builder {
    private final Path folder;
    private final String warehouse;
    private final Map<String, String> backendStorage = new HashMap<>();
    private final Map<String, String> clientStorage = new LinkedHashMap<>();
    private String clientId = "floe-client";
    private String clientSecret = "floe-client-secret";
    private String valuePrefix = "";
    private Duration tokenLifetime = Duration.ofHours(1);
    private InProcessS3 vendingS3;
    private Duration credentialLifetime;

    private Builder(Path folder, String warehouse) {
      this.folder = Objects.requireNonNull(folder, "folder is null");
      this.warehouse = Objects.requireNonNull(warehouse, "warehouse is null");
    }

    /** FileIO options of the server's own catalog (it writes table metadata). */
    public Builder backendStorage(Map<String, String> options) {
      backendStorage.putAll(options);
      return this;
    }

    /** Options every loaded table's config carries to clients (endpoint, path style, ...). */
    public Builder clientStorage(Map<String, String> options) {
      clientStorage.putAll(options);
      return this;
    }

    /** The OAuth2 client the token endpoint accepts. */
    public Builder client(String id, String secret) {
      this.clientId = id;
      this.clientSecret = secret;
      return this;
    }

    /** Lifetime of every token issued (whole seconds). */
    public Builder tokenLifetime(Duration lifetime) {
      this.tokenLifetime = lifetime;
      return this;
    }

    /** Start of every token and vended credential value, so tests can look for them in output. */
    public Builder valuePrefix(String prefix) {
      this.valuePrefix = prefix;
      return this;
    }

    /** Vend S3 credentials for this S3 server, each valid for {@code lifetime}. */
    public Builder vendCredentials(InProcessS3 s3, Duration lifetime) {
      this.vendingS3 = s3;
      this.credentialLifetime = lifetime;
      return this;
    }

    public RestCatalogServer start() {
      Map<String, String> properties = new HashMap<>(backendStorage);
      properties.put("type", "jdbc");
      properties.put("uri", "jdbc:sqlite:" + folder.resolve("rest-catalog.db"));
      properties.put("jdbc.schema-version", "V1");
      properties.put("warehouse", warehouse);
      Catalog backend = CatalogUtil.buildIcebergCatalog("rest_backend", properties, new Configuration());
      RestCatalogServer server = new RestCatalogServer(this, backend);
      try {
        server.jetty.start();
      } catch (Exception e) {
        server.close();
        throw new IllegalStateException("Cannot start the REST catalog server: " + e.getMessage(), e);
      }
      return server;
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String uri() {
    return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }

  /** Options of a Spark catalog that talks to this server with the OAuth2 client credentials. */
  public Map<String, String> catalogOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("type", "rest");
    options.put("uri", uri());
    options.put("credential", clientId + ":" + clientSecret);
    options.put("oauth2-server-uri", uri() + RestGate.TOKEN_PATH);
    options.put("scope", "catalog");
    return options;
  }

  public TokenIssuer tokens() {
    return tokens;
  }

  /** The credential vendor, or null when the server vends none. */
  public CredentialVendor vendor() {
    return vendor;
  }

  /** Calls of the table credentials (refresh) endpoint. */
  public int credentialRequests() {
    return gate.credentialRequests();
  }

  /**
   * Closes the Iceberg catalog behind a Spark catalog of the session, which stops its token
   * refresh; call before {@link #close} so that no refresh calls a stopped server.
   */
  public static void closeCatalog(SparkSession spark, String name) {
    if (spark == null) {
      return;
    }
    Catalog catalog = ((FloeCatalog) spark.sessionState().catalogManager().catalog(name)).icebergCatalog();
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot close catalog " + name + ": " + e.getMessage(), e);
      }
    }
  }

  @Override
  public void close() {
    try {
      jetty.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot stop the REST catalog server: " + e.getMessage(), e);
    } finally {
      if (backend instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
