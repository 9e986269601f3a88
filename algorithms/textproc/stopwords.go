package textproc

import "strings"

// englishStopList is zenbrain's English stop-word list: function words
// (articles, pronouns, auxiliaries, prepositions, conjunctions, common
// adverbs) and their contractions in the apostrophe form [Tokens] produces.
const englishStopList = `
a about above after again against all also am an and any are aren't as at
be because been before being below between both but by
can can't cannot could couldn't
did didn't do does doesn't doing don't down during
each either else ever every
few for from further
had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
i i'd i'll i'm i've if in into is isn't it it's its itself
just
let's
me more most much must mustn't my myself
neither no nor not now
of off often on once only or other ought our ours ourselves out over own
same shall shan't she she'd she'll she's should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they'd they'll they're they've
this those though through to too
under until up upon us
very
was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether which while who
who's whom whose why why's will with won't would wouldn't
yet you you'd you'll you're you've your yours yourself yourselves
`

// germanStopList is zenbrain's German stop-word list: articles in all cases,
// pronouns, auxiliaries and modal forms, prepositions, conjunctions and
// frequent particles, with both ß and umlaut spellings as [Tokens] yields.
const germanStopList = `
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch auf aus
bei beim bin bis bist
da damit dann das dass daß dasselbe dazu dein deine deinem deinen deiner deines dem demselben den denn
denselben der derer derselbe derselben des desselben dessen dich die dies diese dieselbe dieselben diesem
diesen dieser dieses dir doch dort du durch
ein eine einem einen einer eines einig einige einigem einigen einiger einiges einmal er es etwas euch euer
eure eurem euren eurer eures
für
gegen gewesen
hab habe haben hat hatte hatten hätte hätten hier hin hinter
ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist
jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt
kann kannst kein keine keinem keinen keiner keines können könnte
machen man manche manchem manchen mancher manches mein meine meinem meinen meiner meines mich mir mit muss
musste müssen
nach nicht nichts noch nun nur
ob oder ohne
sehr sei sein seine seinem seinen seiner seines selbst sich sie sind so solche solchem solchen solcher solches
soll sollte sondern sonst
über um und uns unser unsere unserem unseren unserer unseres unter
viel vom von vor
während war waren warst was weg weil weiter welche welchem welchen welcher welches wenn werde werden wie worden wurde wurden wäre wären
wieder will wir wird wirst wo wollen wollte würde würden
zu zum zur zwar zwischen
`

func wordSet(list string) map[string]struct{} {
	fields := strings.Fields(list)
	m := make(map[string]struct{}, len(fields))
	for _, f := range fields {
		m[f] = struct{}{}
	}
	return m
}

// stopSets holds the parsed stop-word sets.
type stopSets struct {
	en, de map[string]struct{}
}

// stops is built at package initialization and only ever read afterwards.
var stops = stopSets{en: wordSet(englishStopList), de: wordSet(germanStopList)}

// IsStopWord reports whether the lower-case token tok is a stop word of lang.
// Any lang other than [German] uses the English list.
func IsStopWord(tok string, lang Lang) bool {
	if lang == German {
		_, ok := stops.de[tok]
		return ok
	}
	_, ok := stops.en[tok]
	return ok
}

// StopWords returns a fresh copy of the stop-word list of lang, sorted as
// written in the source. Any lang other than [German] returns the English
// list.
func StopWords(lang Lang) []string {
	if lang == German {
		return strings.Fields(germanStopList)
	}
	return strings.Fields(englishStopList)
}
