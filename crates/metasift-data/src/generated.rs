//! Text generated from pools of our own (no real data): stand-ins of
//! about the size and mix of the team's corpora — Chinese and English,
//! full-width and ASCII punctuation, digits, site names in titles — for the
//! tests, benches and tools that run without the data folder. Seeded, so
//! the same on every machine.

/// `n` generated links: hosts, paths, queries, escapes and fragments of
/// the kinds result pages carry.
pub fn links(n: usize) -> Vec<String> {
    let mut g = Gen(0x1ace);
    let hosts = [
        "www.example.com",
        "en.wikipedia.example",
        "news.example.org",
        "m.shop.example.co.uk",
        "zhidao.baidu.example",
        "sub.domain.example.net:8080",
        "EXAMPLE.COM",
        "xn--fsq.example",
    ];
    let segs = [
        "wiki",
        "a",
        "Js",
        "js_intro.asp",
        "2026",
        "05",
        "%E4%B8%AD",
        "item",
        "p",
        "index.html",
        "~user",
        "a b",
    ];
    (0..n)
        .map(|i| {
            let scheme = if i % 5 == 0 { "http" } else { "https" };
            let host = hosts[g.below(hosts.len())];
            let mut path = String::new();
            for _ in 0..g.below(4) {
                path.push('/');
                path.push_str(segs[g.below(segs.len())]);
            }
            if i % 3 == 0 {
                path.push('/');
            }
            let query = match i % 4 {
                0 => format!("?q={}&utm_source=x&id={i}", segs[g.below(segs.len())]),
                1 => format!("?page={}", i % 9),
                _ => String::new(),
            };
            let frag = if i % 7 == 0 { "#top" } else { "" };
            format!("{scheme}://{host}{path}{query}{frag}")
        })
        .collect()
}

/// A seeded generator of text from pools of our own (the seed is the state).
pub struct Gen(pub u64);

const ZH: &[&str] = &[
    "搜索",
    "引擎",
    "结果",
    "重复",
    "网页",
    "标题",
    "摘要",
    "学习",
    "方法",
    "高考",
    "志愿",
    "咖啡",
    "睡眠",
    "番茄",
    "列车",
    "北京",
    "上海",
    "问题",
    "答案",
    "经验",
    "教程",
    "今天",
    "我们",
    "可以",
    "一个",
    "怎么",
    "为什么",
    "时间",
    "城市",
    "专业",
];
const EN: &[&str] = &[
    "search", "engine", "results", "the", "of", "and", "Rust", "news", "market", "bank", "rates",
    "Tuesday", "said", "team", "game", "won", "price", "oil", "new", "first", "report", "city",
    "school", "court", "company", "shares", "U.S.", "Inc.", "AP", "3.5%",
];
const MARKS: &[&str] = &[
    "，", "。", "、", "；", "：", "？", "！", "“", "”", "（", "）", "《", "》", "…", ",", ".", ";",
    ":", "?", "!", " - ", "—", "/", "(", ")", "'", "\"", "&", "·",
];
const SITES: &[&str] = &[
    "_百度知道",
    "_百度百科",
    "_知乎",
    " - Wikipedia",
    " | News",
    " - AP",
    "",
];

impl Gen {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// `n` words of one script, with marks between some.
    pub fn words(&mut self, n: usize, zh: bool) -> String {
        let mut out = String::new();
        for k in 0..n {
            if zh {
                out.push_str(ZH[self.below(ZH.len())]);
            } else {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(EN[self.below(EN.len())]);
            }
            if self.below(4) == 0 {
                out.push_str(MARKS[self.below(MARKS.len())]);
            }
            if self.below(15) == 0 {
                // A number (a word of its own in English), now and then a
                // temperature.
                if !zh {
                    out.push(' ');
                }
                out.push_str(&self.below(2030).to_string());
                if self.below(4) == 0 {
                    out.push('℃');
                }
            }
        }
        out
    }
    /// A title (the `i`th: every third English).
    pub fn title(&mut self, i: usize) -> String {
        let n = 2 + self.below(6);
        let t = self.words(n, !i.is_multiple_of(3));
        format!("{t}{}", SITES[self.below(SITES.len())])
    }
    /// A snippet (the `i`th: every third English).
    pub fn snippet(&mut self, i: usize) -> String {
        let n = 8 + self.below(30);
        self.words(n, !i.is_multiple_of(3))
    }
}

/// `n` generated `(title, snippet)` results (a third of them English).
pub fn results(seed: u64, n: usize) -> Vec<(String, String)> {
    let mut g = Gen(seed);
    (0..n).map(|i| (g.title(i), g.snippet(i))).collect()
}

/// `n` generated lines in the shapes of the corpora's lines: a quoted CSV
/// row (class, title, text), a tab-separated title and text, or a text.
pub fn lines(seed: u64, n: usize) -> Vec<String> {
    let mut g = Gen(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => format!("\"{}\",\"{}\",\"{}\"", i % 4 + 1, g.title(i), g.snippet(i)),
            1 => format!("{}\t{}", g.title(i), g.snippet(i)),
            _ => g.snippet(i),
        })
        .collect()
}
