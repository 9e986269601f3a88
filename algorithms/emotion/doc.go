// Package emotion tags text with an emotional tag — valence, arousal and
// significance — and derives from it the decay multiplier m_emo of the
// forgetting model and a consolidation weight.
//
// The tagger is a transparent lexicon method in English and German (the
// lexicons are the embedded files lexicon/en.txt, lexicon/de.txt and
// lexicon/common.txt, written for zenbrain; at least 100 weighted entries per
// polarity per language). Every tag carries the [Signal]s that produced it, so
// a tag can be explained word by word.
//
// # Procedure
//
//  1. The text is NFC-normalised and split into word tokens (letters, digits,
//     inner apostrophes), emoticons and emoji; clause boundaries (, ; : and
//     dashes) and sentence boundaries (. ! ? …) are kept; "!" are counted.
//  2. The language is the one with more function words ("war" means "was" in
//     German and "war" in English); when undecided, the reading with more cues
//     wins.
//  3. Multi-word phrases are matched first, longest first ("never forget",
//     "passed away", "nie vergessen"); then single words, exactly, through
//     inflection (happiness → happy, glücklichen → glücklich) and, in German,
//     through compounds: the head of "Krebsdiagnose" counts 0.8×, the modifier
//     0.5×.
//  4. Each cue's weight w (valence v = ±w, its arousal a, significance s) is
//     modified by: the intensifiers directly in front (up to two, multiplied:
//     "very" 1.5, "extremely" 1.8, "sehr" 1.5, "slightly" 0.6); ALL CAPS (×1.3);
//     a negator up to 3 tokens before it in the clause ("not", "never",
//     "nicht", "kein": v × −0.5, a × 0.5, s × 0.3), or, in German, a negator
//     ending the clause right after it ("Ich mag das nicht"); and a contrast
//     word in the sentence ("but", "aber": cues before it × 0.5, after × 1.5).
//  5. Valence V = Σv / √((Σv)² + α), α = 1 + 0.02·words (the normalisation of
//     VADER, Hutto & Gilbert 2014, rescaled to unit weights, growing with
//     length so that one word in a long text weighs less).
//  6. Arousal and significance combine their parts by noisy-or,
//     1 − Π(1 − xᵢ): arousal from the cues, "!" (0.15 each, at most 0.45),
//     emphatic capitals (0.15 each, at most 0.3; capitals count on lexicon
//     words, or on every word when two thirds of the text is in capitals, so
//     acronyms do not) and amplifying intensifiers (0.05 each, at most 0.15).
//  7. m_emo = clamp(1 + 2·max(|V|, A, S), 1, 3) (see
//     [github.com/zenbrain/zb/algorithms/forgetting.EmotionalMultiplier]) and
//     the consolidation weight clamp(0.3·A + 0.5·S + 0.2·|V|, 0, 1).
//
// Differences from the original heuristic (reference notes §4.4): neutral text
// gets arousal 0 and m_emo exactly 1 (the original's baseline arousal 0.2 gave
// every neutral memory m_emo 1.4); negation, intensifiers, contrast, phrases,
// inflection, compounds and language detection are new; "?" adds no arousal.
//
// All parameters are in [Config]. The package is pure and deterministic.
package emotion
