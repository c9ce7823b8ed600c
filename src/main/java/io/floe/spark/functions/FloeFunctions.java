package io.floe.spark.functions;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;

/**
 * The functions a Floe catalog serves: Iceberg's partition transforms {@code bucket}, {@code
 * truncate}, {@code years}, {@code months}, {@code days} and {@code hours}, each computing exactly
 * the value Iceberg's own transform gives.
 *
 * <p>They live in the {@code system} namespace ({@code SELECT floe.system.bucket(16, id)}) and are
 * also found under a bare name, which is how Spark looks up the transforms of a write's required
 * distribution and ordering. The functions are stateless and may be shared by any number of
 * queries.
 */
public final class FloeFunctions {
  /** The namespace users name the functions in. */
  public static final String NAMESPACE = "system";

  private static final Map<String, UnboundFunction> FUNCTIONS = functions();

  private FloeFunctions() {}

  private static Map<String, UnboundFunction> functions() {
    Map<String, UnboundFunction> functions = new LinkedHashMap<>();
    for (UnboundFunction function :
        List.of(
            new BucketFunction(),
            new TruncateFunction(),
            new YearsFunction(),
            new MonthsFunction(),
            new DaysFunction(),
            new HoursFunction())) {
      functions.put(function.name(), function);
    }
    return Collections.unmodifiableMap(functions);
  }

  /** The function names, in a stable order. */
  public static List<String> names() {
    return List.copyOf(FUNCTIONS.keySet());
  }

  /** Whether functions are served in a namespace: the empty one and {@code system}. */
  public static boolean servesNamespace(String[] namespace) {
    Objects.requireNonNull(namespace, "namespace is null");
    return namespace.length == 0
        || (namespace.length == 1 && namespace[0].equalsIgnoreCase(NAMESPACE));
  }

  /** The functions of a namespace served by {@link #servesNamespace}, named in that namespace. */
  public static Identifier[] list(String[] namespace) {
    Objects.requireNonNull(namespace, "namespace is null");
    if (!servesNamespace(namespace)) {
      return new Identifier[0];
    }
    return FUNCTIONS.keySet().stream()
        .map(name -> Identifier.of(namespace, name))
        .toArray(Identifier[]::new);
  }

  /** The function an identifier names, if any; names are matched case-insensitively. */
  public static Optional<UnboundFunction> load(Identifier ident) {
    Objects.requireNonNull(ident, "ident is null");
    if (!servesNamespace(ident.namespace())) {
      return Optional.empty();
    }
    return Optional.ofNullable(FUNCTIONS.get(ident.name().toLowerCase(Locale.ROOT)));
  }
}
