import ReactMarkdown from "react-markdown";
import rehypeSanitize from "rehype-sanitize";

/** Markdown from the API (study guides) as HTML: raw HTML in it is not rendered, and links and images are sanitised. */
export function Markdown({ children }: { children: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown rehypePlugins={[rehypeSanitize]}>{children}</ReactMarkdown>
    </div>
  );
}
