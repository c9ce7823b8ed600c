package io.floe.spark.extensions;

import io.floe.spark.catalog.IcebergSessionCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.CurrentNamespace$;
import org.apache.spark.sql.catalyst.analysis.SchemaCompensation$;
import org.apache.spark.sql.catalyst.analysis.SchemaEvolution$;
import org.apache.spark.sql.catalyst.analysis.SchemaTypeEvolution$;
import org.apache.spark.sql.catalyst.analysis.UnresolvedIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedNamespace;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTableOrView;
import org.apache.spark.sql.catalyst.analysis.UnresolvedView;
import org.apache.spark.sql.catalyst.analysis.ViewSchemaMode;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.plans.logical.AlterViewAs;
import org.apache.spark.sql.catalyst.plans.logical.AlterViewSchemaBinding;
import org.apache.spark.sql.catalyst.plans.logical.CreateView;
import org.apache.spark.sql.catalyst.plans.logical.DescribeRelation;
import org.apache.spark.sql.catalyst.plans.logical.DropView;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.RenameTable;
import org.apache.spark.sql.catalyst.plans.logical.SetViewProperties;
import org.apache.spark.sql.catalyst.plans.logical.ShowCreateTable;
import org.apache.spark.sql.catalyst.plans.logical.ShowViews;
import org.apache.spark.sql.catalyst.plans.logical.UnsetViewProperties;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Picks out the view statements Spark's parser produced that name a view catalog, and turns each
 * into its {@link ViewCommand}. Spark 4.1 would refuse them (its session-catalog rules fail any
 * view statement of another catalog before a later rule could see it), so they are taken here,
 * right after parsing, with the session's current catalog and namespace. Statements on temporary
 * views, on catalogs without views, on Spark's own views in the session catalog, and DESCRIBE or
 * SHOW CREATE TABLE of a table stay Spark's.
 */
final class ViewStatements {
  private ViewStatements() {}

  static Optional<ViewCommand> command(SparkSession spark, LogicalPlan plan) {
    CatalogManager catalogs = spark.sessionState().catalogManager();
    if (plan instanceof CreateView create
        && create.child() instanceof UnresolvedIdentifier name
        && create.originalText().isDefined()) {
      // as in Spark, a temporary view of the same name does not stop a persistent view's creation
      return ViewRef.resolvePersistent(catalogs, parts(name.nameParts()))
          .filter(target -> createsIcebergView(spark, target))
          .map(
              target -> {
                refuseSchemaEvolution("create", target, create.viewSchemaMode());
                return createCommand(target, create);
              });
    }
    if (plan instanceof AlterViewSchemaBinding binding
        && binding.child() instanceof UnresolvedView name) {
      Optional<Found> found = existing(catalogs, name.multipartIdentifier());
      if (found.isPresent()) {
        // Iceberg stores no binding mode; a silent success would claim a change that is not kept
        throw ViewErrors.message(
            String.format(
                "Cannot alter view %s WITH SCHEMA %s: Iceberg views keep no schema binding mode; "
                    + "every read up-casts each column to its stored type, as WITH SCHEMA BINDING",
                found.get().ref().quoted(), schemaModeName(binding.viewSchemaMode())));
      }
      return Optional.empty();
    }
    if (plan instanceof AlterViewAs alter && alter.child() instanceof UnresolvedView name) {
      return existing(catalogs, name.multipartIdentifier())
          .map(found -> new AlterViewQueryCommand(found.ref(), alter.originalText(), alter.query()));
    }
    if (plan instanceof SetViewProperties set && set.child() instanceof UnresolvedView name) {
      return existing(catalogs, name.multipartIdentifier())
          .map(found -> ViewPropertiesCommand.set(found.ref(), javaMap(set.properties())));
    }
    if (plan instanceof UnsetViewProperties unset && unset.child() instanceof UnresolvedView name) {
      return existing(catalogs, name.multipartIdentifier())
          .map(
              found ->
                  ViewPropertiesCommand.unset(
                      found.ref(), CollectionConverters.asJava(unset.propertyKeys()), unset.ifExists()));
    }
    if (plan instanceof DropView drop && drop.child() instanceof UnresolvedIdentifier name) {
      return ViewRef.resolve(catalogs, parts(name.nameParts()))
          .filter(target -> !isSessionCatalog(target) || target.load().isPresent())
          .map(target -> new DropViewCommand(target, drop.ifExists()));
    }
    if (plan instanceof RenameTable rename
        && rename.isView()
        && rename.child() instanceof UnresolvedTableOrView name) {
      List<String> newName = parts(rename.newName());
      return existing(catalogs, name.multipartIdentifier())
          .map(found -> renameCommand(catalogs, found.ref(), newName));
    }
    if (plan instanceof ShowViews show) {
      return showViews(catalogs, show);
    }
    if (plan instanceof ShowCreateTable showCreate
        && !showCreate.asSerde()
        && showCreate.child() instanceof UnresolvedTableOrView name) {
      return existing(catalogs, name.multipartIdentifier())
          .map(found -> new ShowCreateViewCommand(found.ref(), found.view()));
    }
    if (plan instanceof DescribeRelation describe
        && describe.partitionSpec().isEmpty()
        && describe.relation() instanceof UnresolvedTableOrView name) {
      return existing(catalogs, name.multipartIdentifier())
          .map(found -> new DescribeViewCommand(found.ref(), found.view(), describe.isExtended()));
    }
    return Optional.empty();
  }

  /**
   * Whether a new persistent view is Floe's to create: always in a view catalog; in the session
   * catalog ({@code FloeSessionCatalog}) only when it keeps Iceberg views and the built-in catalog
   * holds nothing of that name. So Spark's own views stay Spark's: CREATE OR REPLACE or IF NOT
   * EXISTS of an existing one, and every view of a session catalog whose Iceberg catalog keeps no
   * views, run as Spark runs them.
   */
  private static boolean createsIcebergView(SparkSession spark, ViewRef target) {
    if (!isSessionCatalog(target)) {
      return true;
    }
    if (!((IcebergSessionCatalog) target.catalog()).servesIcebergViews()) {
      return false;
    }
    String[] namespace = target.ident().namespace();
    if (namespace.length != 1) {
      // the built-in catalog's names have one level; Spark refuses any other
      return false;
    }
    SessionCatalog builtIn = spark.sessionState().catalog();
    return builtIn.databaseExists(namespace[0])
        && !builtIn.tableExists(new TableIdentifier(target.ident().name(), Option.apply(namespace[0])));
  }

  /**
   * Refuses {@code WITH SCHEMA EVOLUTION} and {@code WITH SCHEMA TYPE EVOLUTION} for an Iceberg
   * view: an Iceberg view version stores one fixed schema, which every read projects onto, so a
   * view whose columns follow its tables cannot be stored. {@code BINDING} and {@code
   * COMPENSATION} (Spark's default) are accepted; both read as Floe reads every view, each column
   * up-cast to its stored type, so a column change that cannot be up-cast fails the read.
   */
  private static void refuseSchemaEvolution(String action, ViewRef target, ViewSchemaMode mode) {
    if (mode == SchemaEvolution$.MODULE$ || mode == SchemaTypeEvolution$.MODULE$) {
      throw ViewErrors.message(
          String.format(
              "Cannot %s view %s: WITH SCHEMA %s is not supported for Iceberg views, which store a "
                  + "fixed schema per version; omit the clause or use WITH SCHEMA BINDING",
              action, target.quoted(), schemaModeName(mode)));
    }
  }

  private static String schemaModeName(ViewSchemaMode mode) {
    if (mode == SchemaEvolution$.MODULE$) {
      return "EVOLUTION";
    }
    if (mode == SchemaTypeEvolution$.MODULE$) {
      return "TYPE EVOLUTION";
    }
    if (mode == SchemaCompensation$.MODULE$) {
      return "COMPENSATION";
    }
    return "BINDING";
  }

  private static boolean isSessionCatalog(ViewRef target) {
    return target.catalog() instanceof IcebergSessionCatalog;
  }

  /**
   * As Spark renames a table, the new name is in the view's own catalog: one part keeps the view's
   * namespace, more parts give the namespace, and a leading catalog name must be the view's own.
   */
  private static ViewCommand renameCommand(CatalogManager catalogs, ViewRef from, List<String> newName) {
    List<String> parts = newName;
    if (parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0))) {
      CatalogPlugin named = catalogs.catalog(parts.get(0));
      if (named.name().equals(from.catalog().name())) {
        parts = parts.subList(1, parts.size());
      } else if (named instanceof ViewCatalog other) {
        List<String> rest = parts.subList(1, parts.size());
        return new RenameViewCommand(from, new ViewRef(other, identifier(from, rest)));
      }
    }
    return new RenameViewCommand(from, new ViewRef(from.catalog(), identifier(from, parts)));
  }

  private static Identifier identifier(ViewRef from, List<String> parts) {
    String[] namespace =
        parts.size() == 1
            ? from.ident().namespace()
            : parts.subList(0, parts.size() - 1).toArray(new String[0]);
    return Identifier.of(namespace, parts.get(parts.size() - 1));
  }

  private static ViewCommand createCommand(ViewRef target, CreateView create) {
    List<String> names = new ArrayList<>();
    List<String> comments = new ArrayList<>();
    for (Tuple2<String, Option<String>> column :
        CollectionConverters.asJava(create.userSpecifiedColumns())) {
      names.add(column._1());
      comments.add(column._2().isDefined() ? column._2().get() : null);
    }
    CreateViewCommand.Definition definition =
        new CreateViewCommand.Definition(
            target,
            create.originalText().get(),
            create.query(),
            names,
            comments,
            create.comment().isDefined() ? create.comment().get() : null,
            javaMap(create.properties()));
    return new CreateViewCommand(definition, create.allowExisting(), create.replace());
  }

  private static Optional<ViewCommand> showViews(CatalogManager catalogs, ShowViews show) {
    CatalogPlugin catalog;
    String[] namespace;
    if (show.namespace() == CurrentNamespace$.MODULE$) {
      catalog = catalogs.currentCatalog();
      namespace = catalogs.currentNamespace();
    } else if (show.namespace() instanceof UnresolvedNamespace unresolved) {
      List<String> parts = parts(unresolved.multipartIdentifier());
      if (!parts.isEmpty() && catalogs.isCatalogRegistered(parts.get(0))) {
        catalog = catalogs.catalog(parts.get(0));
        namespace = parts.subList(1, parts.size()).toArray(new String[0]);
      } else {
        catalog = catalogs.currentCatalog();
        namespace = parts.toArray(new String[0]);
      }
    } else {
      return Optional.empty();
    }
    if (!(catalog instanceof ViewCatalog views)) {
      return Optional.empty();
    }
    boolean session = catalog instanceof IcebergSessionCatalog;
    if (session && (!((IcebergSessionCatalog) catalog).servesIcebergViews() || namespace.length != 1)) {
      // the session catalog without Iceberg views lists only Spark's views: Spark's own command
      return Optional.empty();
    }
    String pattern = show.pattern().isDefined() ? show.pattern().get() : null;
    return Optional.of(new ShowViewsCommand(views, namespace, pattern, session));
  }

  /** A view that exists, with the name it was found under. */
  private record Found(ViewRef ref, View view) {}

  private static Optional<Found> existing(CatalogManager catalogs, scala.collection.immutable.Seq<String> name) {
    Optional<ViewRef> ref = ViewRef.resolve(catalogs, parts(name));
    return ref.flatMap(r -> r.load().map(view -> new Found(r, view)));
  }

  private static List<String> parts(scala.collection.immutable.Seq<String> parts) {
    return List.copyOf(CollectionConverters.asJava(parts));
  }

  private static Map<String, String> javaMap(scala.collection.immutable.Map<String, String> map) {
    return Map.copyOf(CollectionConverters.asJava(map));
  }
}
