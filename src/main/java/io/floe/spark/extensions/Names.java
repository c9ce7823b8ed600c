package io.floe.spark.extensions;

import io.floe.spark.util.Identifiers;
import java.util.List;
import java.util.stream.Collectors;

/** Multi-part names as messages and plans show them: parts quoted only where Spark needs it. */
final class Names {
  private Names() {}

  /** {@code db.t}, or {@code db.`my table`} for a part that is not a plain word. */
  static String quoted(List<String> parts) {
    return parts.stream().map(Names::quotedIfNeeded).collect(Collectors.joining("."));
  }

  private static String quotedIfNeeded(String part) {
    return part.matches("[A-Za-z_][A-Za-z0-9_]*") ? part : Identifiers.quote(part);
  }
}
