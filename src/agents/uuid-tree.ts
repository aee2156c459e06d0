// Transcripts written as a tree of records, each naming its parent by uuid (Claude Code, Qwen
// Code): branches, rewinds and resumes append new records under an older parent, so the live
// conversation is the path from the newest leaf back to the root, and everything off that path
// is an abandoned branch. This is the one walker of such trees.

export type TreeNode = { uuid: string; parent?: string; seq: number };

export class UuidTree<N extends TreeNode> {
  private readonly nodes = new Map<string, N>();

  /** A repeated uuid: the last copy wins, in its new position (a record rewritten in place). */
  add(node: N): void {
    this.nodes.delete(node.uuid);
    this.nodes.set(node.uuid, node);
  }

  has(uuid: string): boolean {
    return this.nodes.has(uuid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /**
   * Root→leaf nodes of the branch that ends at `leaf`, kept by `keep`. When a parent is missing
   * (a skipped line, a file that starts mid-tree) or the links loop, the walk cannot reach a root:
   * the file's own order of the kept nodes is the best reading left, so that is returned.
   */
  chain(leaf: N | undefined, keep: (n: N) => boolean): N[] {
    if (!leaf) return [];
    const path: N[] = [];
    const seen = new Set<string>();
    let node: N | undefined = leaf;
    while (node && !seen.has(node.uuid)) {
      seen.add(node.uuid);
      path.push(node);
      if (node.parent === undefined) return path.filter(keep).reverse();
      node = this.nodes.get(node.parent);
    }
    return [...this.nodes.values()].filter(keep).sort((a, b) => a.seq - b.seq);
  }
}
