"use client";
import { useEffect } from "react";

/** To sign-in, and back to this address afterwards (sign-in accepts only known screens of this site). */
export function SignInRedirect() {
  useEffect(() => {
    const here = window.location.pathname + window.location.search;
    window.location.replace(`/accesso?dopo=${encodeURIComponent(here)}`);
  }, []);
  return null;
}
