package io.floe.spark.rest;

import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.HTTPRequest;
import org.apache.iceberg.rest.ParserContext;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * Iceberg's REST catalog adapter, with the storage settings clients need and, when a vendor is
 * given, fresh S3 credentials plus the table's credentials refresh endpoint added to every table
 * it hands out (load, create, commit).
 */
final class VendingAdapter extends RESTCatalogAdapter {
  private final Map<String, String> storageConfig;
  private final CredentialVendor vendor;

  VendingAdapter(Catalog backend, Map<String, String> storageConfig, CredentialVendor vendor) {
    super(backend);
    this.storageConfig = Map.copyOf(storageConfig);
    this.vendor = vendor;
  }

  @Override
  protected <T extends RESTResponse> T execute(
      HTTPRequest request,
      Class<T> responseType,
      Consumer<ErrorResponse> errorHandler,
      Consumer<Map<String, String>> responseHeaders,
      ParserContext parserContext) {
    T response = super.execute(request, responseType, errorHandler, responseHeaders, parserContext);
    if (!(response instanceof LoadTableResponse loaded)) {
      return response;
    }
    LoadTableResponse.Builder withStorage =
        LoadTableResponse.builder()
            .withTableMetadata(loaded.tableMetadata())
            .addAllConfig(loaded.config())
            .addAllCredentials(loaded.credentials())
            .addAllConfig(storageConfig);
    if (vendor != null) {
      TablePath table = TablePath.of(request);
      withStorage
          .addAllConfig(vendor.vend(table.name()))
          .addConfig("client.refresh-credentials-endpoint", table.credentialsPath());
    }
    return responseType.cast(withStorage.build());
  }

  /** The encoded namespace and name of the table a request is about. */
  record TablePath(String namespace, String table) {
    static TablePath of(HTTPRequest request) {
      String path = request.path().startsWith("/") ? request.path().substring(1) : request.path();
      String[] parts = path.split("/");
      // v1/namespaces/{namespace}/tables[/{table}]
      String table;
      if (parts.length > 4 && !"register".equals(parts[4])) {
        table = parts[4];
      } else if (request.body() instanceof CreateTableRequest create) {
        table = create.name();
      } else if (request.body() instanceof RegisterTableRequest register) {
        table = register.name();
      } else {
        throw new IllegalArgumentException("Cannot tell the table of request " + request.path());
      }
      return new TablePath(parts[2], table);
    }

    String name() {
      return namespace.replace("%1F", ".") + "." + table;
    }

    String credentialsPath() {
      return "v1/namespaces/" + namespace + "/tables/" + table + "/credentials";
    }
  }
}
