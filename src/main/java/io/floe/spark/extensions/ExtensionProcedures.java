package io.floe.spark.extensions;

import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The procedure catalog Spark's resolved {@code CALL} of an {@link ExtensionCommand} names. It is
 * no catalog users can configure or call: the parser resolves each command itself (the statement's
 * table is resolved only when it runs, in whichever Floe catalog holds it), so this catalog serves
 * no procedure by name and lists none. Its name shows in plans: {@code Call floe_extensions...}.
 */
final class ExtensionProcedures implements ProcedureCatalog {
  static final ExtensionProcedures INSTANCE = new ExtensionProcedures();
  static final String NAME = "floe_extensions";

  private ExtensionProcedures() {}

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    throw new UnsupportedOperationException("Cannot configure " + NAME + " as a catalog");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    throw new UnsupportedOperationException(
        "Cannot load procedure " + ident + ": " + NAME + " serves only parsed extension statements");
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return new Identifier[0];
  }
}
