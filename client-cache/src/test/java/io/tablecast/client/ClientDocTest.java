package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps the API block of docs/CLIENT.md true: every public method, record component and enum
 * constant of the API is in it, and every call in it is a public method or type of the API.
 */
class ClientDocTest {
  private static final List<Class<?>> API =
      List.of(
          TablecastClient.class,
          TablecastClient.Builder.class,
          TableMirror.class,
          NearCache.class,
          MirrorShape.class,
          NearCacheOptions.class,
          IndexDefinition.class,
          MirrorIndex.class,
          MirrorQuery.class,
          ChangeListener.class,
          BatchListener.class,
          StaleListener.class,
          ConnectionListener.class,
          ErrorListener.class,
          Subscription.class,
          ChangeEvent.class,
          Column.class,
          SnapshotProgress.class,
          TablecastException.class,
          ChangeType.class,
          ColumnType.class,
          ServerError.class,
          RowView.class,
          TablecastClientMetrics.class);
  private static final Pattern CALL = Pattern.compile("\\b([a-zA-Z]\\w*)\\(");

  @Test
  void theApiPackageHoldsNoOtherPublicType() throws IOException {
    List<String> publicTypes = new ArrayList<>();
    try (var files = Files.list(Path.of("src/main/java/io/tablecast/client"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        if (Files.readString(f)
            .matches("(?s).*\\npublic (final |abstract )?(class|interface|record|enum) .*")) {
          publicTypes.add(f.getFileName().toString().replace(".java", ""));
        }
      }
    }
    assertThat(publicTypes)
        .containsExactlyInAnyOrderElementsOf(
            API.stream()
                .filter(c -> c.getEnclosingClass() == null)
                .map(Class::getSimpleName)
                .toList());
  }

  @Test
  void theApiBlockNamesEveryPublicMemberAndNothingElse() throws IOException {
    String block = apiBlock();
    Set<String> members = new LinkedHashSet<>();
    List<String> missing = new ArrayList<>();
    for (Class<?> type : API) {
      members.add(type.getSimpleName());
      for (Method m : type.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers())
            && !m.isSynthetic()
            && !isObjectMethod(m)
            && !(type.isEnum() && (m.getName().equals("values") || m.getName().equals("valueOf")))
            && !(type.isRecord() && isAccessor(type, m))) {
          members.add(m.getName());
          if (!block.contains(m.getName() + "(")) {
            missing.add(type.getSimpleName() + "." + m.getName() + "()");
          }
        }
      }
      if (type.isRecord()) {
        for (RecordComponent c : type.getRecordComponents()) {
          if (!Pattern.compile("\\b" + c.getName() + "\\b").matcher(block).find()) {
            missing.add(type.getSimpleName() + "." + c.getName());
          }
        }
      }
      if (type.isEnum()) {
        for (Object constant : type.getEnumConstants()) {
          if (!block.contains(((Enum<?>) constant).name())) {
            missing.add(type.getSimpleName() + "." + constant);
          }
        }
      }
    }
    assertThat(missing).as("public API missing from the API block of docs/CLIENT.md").isEmpty();
    List<String> unknown = new ArrayList<>();
    Matcher m = CALL.matcher(block);
    while (m.find()) {
      if (!members.contains(m.group(1))) {
        unknown.add(m.group(1));
      }
    }
    assertThat(unknown).as("calls in the API block of docs/CLIENT.md that the API lacks").isEmpty();
  }

  private static boolean isObjectMethod(Method m) {
    return List.of("equals", "hashCode", "toString").contains(m.getName());
  }

  private static boolean isAccessor(Class<?> record, Method m) {
    for (RecordComponent c : record.getRecordComponents()) {
      if (c.getAccessor().equals(m)) {
        return true;
      }
    }
    return false;
  }

  /** The first java block after "## API" in docs/CLIENT.md. */
  private static String apiBlock() throws IOException {
    Path doc = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null && doc == null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("docs/CLIENT.md"))) {
        doc = d.resolve("docs/CLIENT.md");
      }
    }
    assertThat(doc).as("docs/CLIENT.md above " + Path.of("").toAbsolutePath()).isNotNull();
    String text = Files.readString(doc);
    int api = text.indexOf("\n## API\n");
    int start = text.indexOf("```java\n", api);
    return text.substring(start, text.indexOf("\n```\n", start));
  }
}
