import { fromNodeHeaders } from "better-auth/node";
import type { Request, Response } from "express";
import { CLIENT_IP_HEADER } from "../better-auth/auth";

/** Headers handed to the auth library: the client's own, plus its address as the gateway saw it. */
export function authHeaders(req: Request): Headers {
  const headers = fromNodeHeaders(req.headers);
  headers.delete(CLIENT_IP_HEADER);
  if (req.ip) headers.set(CLIENT_IP_HEADER, req.ip);
  return headers;
}

/** Sends the cookies the auth library set (session cookie, its clearing) to the client. */
export function sendCookies(res: Response, setCookies: string[]): void {
  if (setCookies.length > 0) res.append("set-cookie", setCookies);
}
