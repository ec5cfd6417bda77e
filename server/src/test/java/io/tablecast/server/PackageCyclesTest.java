package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of the server's main sources form no cycle (docs/ARCHITECTURE.md draws the layers),
 * nor do those of the Java client ({@code client-cache}, read from its sources beside this module):
 * read from the sources, every import and every fully qualified name of a type of {@code
 * io.tablecast.server} (comments and string literals aside) is a dependency of the file's package
 * on the type's package. On a cycle it fails naming each cycle's packages and, per edge, the files
 * that make it.
 */
class PackageCyclesTest {

  static final String ROOT = "io.tablecast.server";

  private static final Pattern PACKAGE =
      Pattern.compile("^package\\s+([a-z0-9_.]+)\\s*;", Pattern.MULTILINE);

  /** Block and line comments, string and text-block literals, character literals. */
  private static final Pattern NOT_CODE =
      Pattern.compile(
          "/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'",
          Pattern.DOTALL);

  @Test
  void serverPackagesHaveNoCycle() throws IOException {
    Map<String, Map<String, Set<String>>> graph = dependencies(Path.of("src/main/java"), ROOT);
    assertThat(graph)
        .as("packages of %s found in the main sources", ROOT)
        .containsKeys(ROOT, ROOT + ".hub", ROOT + ".tail", ROOT + ".net");
    assertThat(cycles(graph))
        .as("package cycles in %s (each: the packages, then per edge the files)", ROOT)
        .isEmpty();
  }

  @Test
  void clientCachePackagesHaveNoCycle() throws IOException {
    String client = "io.tablecast.client";
    Map<String, Map<String, Set<String>>> graph =
        dependencies(Path.of("../client-cache/src/main/java"), client);
    assertThat(graph)
        .as("packages of %s found in the client's main sources", client)
        .containsKeys(client, client + ".internal");
    assertThat(cycles(graph))
        .as("package cycles in %s (each: the packages, then per edge the files)", client)
        .isEmpty();
  }

  /** The checker finds a cycle and names it with the files of its edges. */
  @Test
  void aCycleIsFoundAndNamed() {
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    edge(graph, "a", "b", "a/A.java");
    edge(graph, "b", "c", "b/B.java");
    edge(graph, "c", "a", "c/C.java");
    edge(graph, "c", "d", "c/C.java");
    assertThat(cycles(graph))
        .singleElement()
        .asString()
        .contains("a -> b -> c -> a")
        .contains("a -> b: a/A.java")
        .contains("c -> a: c/C.java")
        .doesNotContain("d");
    graph.get("c").remove("a");
    assertThat(cycles(graph)).isEmpty();
  }

  /**
   * Package → package it depends on → the files (relative to {@code sources}) that make the
   * dependency; only packages under {@code root}.
   */
  static Map<String, Map<String, Set<String>>> dependencies(Path sources, String root)
      throws IOException {
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    // a type reference: the package part of root.hub.ChangeHub, or of a root.hub.* import
    Pattern reference =
        Pattern.compile("\\b(" + Pattern.quote(root) + "(?:\\.[a-z_][a-z0-9_]*)*)\\.(?:[A-Z]|\\*)");
    List<Path> files;
    try (Stream<Path> s = Files.walk(sources)) {
      files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    for (Path file : files) {
      String text = Files.readString(file);
      Matcher pkg = PACKAGE.matcher(text);
      if (!pkg.find() || !(pkg.group(1).equals(root) || pkg.group(1).startsWith(root + "."))) {
        continue;
      }
      String from = pkg.group(1);
      graph.computeIfAbsent(from, k -> new TreeMap<>());
      Matcher ref = reference.matcher(NOT_CODE.matcher(text).replaceAll(" "));
      while (ref.find()) {
        String to = ref.group(1);
        if (!to.equals(from)) {
          edge(graph, from, to, sources.relativize(file).toString());
        }
      }
    }
    return graph;
  }

  private static void edge(
      Map<String, Map<String, Set<String>>> graph, String from, String to, String file) {
    graph.computeIfAbsent(to, k -> new TreeMap<>());
    graph
        .computeIfAbsent(from, k -> new TreeMap<>())
        .computeIfAbsent(to, k -> new TreeSet<>())
        .add(file);
  }

  /**
   * One description per strongly connected component of more than one package: a cycle through its
   * first package, and every edge inside the component with its files.
   */
  static List<String> cycles(Map<String, Map<String, Set<String>>> graph) {
    List<String> out = new ArrayList<>();
    for (Set<String> component : components(graph)) {
      if (component.size() < 2) {
        continue;
      }
      StringBuilder b = new StringBuilder(String.join(" -> ", cycleThrough(graph, component)));
      for (String from : component) {
        graph
            .get(from)
            .forEach(
                (to, files) -> {
                  if (component.contains(to)) {
                    b.append("\n  ")
                        .append(from)
                        .append(" -> ")
                        .append(to)
                        .append(": ")
                        .append(String.join(", ", files));
                  }
                });
      }
      out.add(b.toString());
    }
    return out;
  }

  /**
   * A shortest path from the component's first package back to it, staying inside the component.
   */
  private static List<String> cycleThrough(
      Map<String, Map<String, Set<String>>> graph, Set<String> component) {
    String start = component.iterator().next();
    Map<String, String> parent = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      String at = queue.poll();
      for (String next : graph.get(at).keySet()) {
        if (!component.contains(next)) {
          continue;
        }
        if (next.equals(start)) {
          List<String> path = new ArrayList<>(List.of(start));
          for (String p = at; !p.equals(start); p = parent.get(p)) {
            path.add(1, p);
          }
          path.add(start);
          return path;
        }
        if (!parent.containsKey(next)) {
          parent.put(next, at);
          queue.add(next);
        }
      }
    }
    throw new IllegalStateException("no cycle through " + start + " in " + component);
  }

  /** Tarjan's strongly connected components, each sorted. */
  private static List<Set<String>> components(Map<String, Map<String, Set<String>>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> out = new ArrayList<>();
    for (String v : graph.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, out);
      }
    }
    return out;
  }

  private static void connect(
      String v,
      Map<String, Map<String, Set<String>>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> out) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : graph.get(v).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, out);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      out.add(component);
    }
  }
}
