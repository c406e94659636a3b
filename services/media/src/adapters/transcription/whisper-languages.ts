/**
 * Whisper's verbose_json names the detected language in English ("english"), not as a BCP-47 tag: its
 * tokenizer's table (openai/whisper, tokenizer.py LANGUAGES), reversed, plus the aliases it accepts.
 */
const WHISPER_LANGUAGE_CODES: Record<string, string> = {
  english: "en", chinese: "zh", german: "de", spanish: "es", russian: "ru", korean: "ko", french: "fr", japanese: "ja",
  portuguese: "pt", turkish: "tr", polish: "pl", catalan: "ca", dutch: "nl", arabic: "ar", swedish: "sv", italian: "it",
  indonesian: "id", hindi: "hi", finnish: "fi", vietnamese: "vi", hebrew: "he", ukrainian: "uk", greek: "el", malay: "ms",
  czech: "cs", romanian: "ro", danish: "da", hungarian: "hu", tamil: "ta", norwegian: "no", thai: "th", urdu: "ur",
  croatian: "hr", bulgarian: "bg", lithuanian: "lt", latin: "la", maori: "mi", malayalam: "ml", welsh: "cy", slovak: "sk",
  telugu: "te", persian: "fa", latvian: "lv", bengali: "bn", serbian: "sr", azerbaijani: "az", slovenian: "sl",
  kannada: "kn", estonian: "et", macedonian: "mk", breton: "br", basque: "eu", icelandic: "is", armenian: "hy",
  nepali: "ne", mongolian: "mn", bosnian: "bs", kazakh: "kk", albanian: "sq", swahili: "sw", galician: "gl", marathi: "mr",
  punjabi: "pa", sinhala: "si", khmer: "km", shona: "sn", yoruba: "yo", somali: "so", afrikaans: "af", occitan: "oc",
  georgian: "ka", belarusian: "be", tajik: "tg", sindhi: "sd", gujarati: "gu", amharic: "am", yiddish: "yi", lao: "lo",
  uzbek: "uz", faroese: "fo", "haitian creole": "ht", pashto: "ps", turkmen: "tk", nynorsk: "nn", maltese: "mt",
  sanskrit: "sa", luxembourgish: "lb", myanmar: "my", tibetan: "bo", tagalog: "tl", malagasy: "mg", assamese: "as",
  tatar: "tt", hawaiian: "haw", lingala: "ln", hausa: "ha", bashkir: "ba", javanese: "jv", sundanese: "su", cantonese: "yue",
  // aliases
  burmese: "my", valencian: "ca", flemish: "nl", haitian: "ht", letzeburgesch: "lb", pushto: "ps", panjabi: "pa",
  moldavian: "ro", moldovan: "ro", sinhalese: "si", castilian: "es", mandarin: "zh",
};

/**
 * The BCP-47 tag for what a Whisper-compatible server reports: a language name ("english" → "en") or,
 * as some self-hosted servers answer, already a code ("en", "pt-BR"; Whisper's "jw" is "jv"). Undefined
 * when it is neither.
 */
export function languageTagFromWhisper(language: string | undefined): string | undefined {
  const value = language?.trim().toLowerCase();
  if (!value) return undefined;
  if (WHISPER_LANGUAGE_CODES[value]) return WHISPER_LANGUAGE_CODES[value];
  if (value === "jw") return "jv";
  const tag = /^([a-z]{2,3})(?:[-_]([a-z]{2}|\d{3}))?$/.exec(value);
  if (!tag) return undefined;
  return tag[2] ? `${tag[1]}-${tag[2].toUpperCase()}` : tag[1];
}
