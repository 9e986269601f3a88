// Package compose builds zenbrain's compositional context
// [compositional_context] (DESIGN.md §6): memories recalled in the reading
// context, plus memories from other contexts (domains) that are connected to
// them through shared entity links — only where the context policy lets the
// reading context read the other one — arranged in structured sections.
//
// # Rules
//
//   - A memory whose context the [Policy] does not let the target read is
//     never part of the output, whatever its score or links. Links with an
//     endpoint in such a context are ignored, so they cannot carry anything
//     across either.
//   - Entities are identified per context ([EntityRef]). Entities in
//     different contexts are the same only through explicit [Link]s (the
//     cross_context layer's entity resolution), transitively across readable
//     contexts. A name appearing in two contexts is not by itself a link.
//   - The anchors are the query's entities and the entities of the home
//     memories chosen. A memory from another readable context joins its
//     context's section only if one of its entities is linked to an anchor;
//     its score is discounted by CrossDiscount (0.5, the reference's
//     cross-context hint relevance) and each context contributes at most
//     MaxPerContext items (2, as in the reference).
//
// The reference implementation ranked other contexts' memories by cosine on a
// shared embedding prefix and ignored the target context (reference notes
// §4.14); here the connection is explicit and the policy is enforced.
//
// The package is pure: no I/O, deterministic output.
package compose
